"""Network services: the MQTT broker layer and protocol v1 that phones and the hub speak.

* :mod:`companion.net.topics`: topic scheme and the access wall (pure, stdlib only).
* :mod:`companion.net.protocol`: message shapes, command parsing, error codes (stdlib only).
* :mod:`companion.net.credentials`: seat and hub logins, mosquitto password files.
* :mod:`companion.net.brokers`: embedded (amqtt), mosquitto and external brokers.
* :mod:`companion.net.client`: a small blocking paho client.

paho-mqtt and amqtt are imported here and nowhere else under ``companion/``.
"""
