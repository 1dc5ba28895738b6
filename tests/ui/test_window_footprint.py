"""The table's window asks for no multisampling (issue 15, memory: its colour and depth buffers
cost the table 10 MB on Mesa's software GL, benches/bench_run.py): the real window's framebuffer
has no sample buffers, and the screen still draws legibly."""
from kivy.graphics.opengl import GL_SAMPLE_BUFFERS, GL_SAMPLES, glGetIntegerv


def test_the_window_draws_without_multisampling(hub, start_app):
    d = start_app(hub)
    assert list(glGetIntegerv(GL_SAMPLE_BUFFERS))[:1] == [0]
    assert list(glGetIntegerv(GL_SAMPLES))[:1] == [0]
    d.check("800x480-home-no-multisampling")
