"""One alert banner: a coloured strip, a title, the message, and Dismiss."""
from kivy.app import App
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout


class Banner(BoxLayout):
    title = StringProperty("")
    message = StringProperty("")
    tone = StringProperty("warn")            # warn, danger, info
    key = ObjectProperty(None)
    more = StringProperty("")                # "+2 more" when older alerts are not shown

    def dismiss(self):
        app = App.get_running_app()
        stack = self.parent
        if stack is not None and hasattr(stack, "keep_room"):
            stack.keep_room()           # the finger stays: nothing moves up under it
        app.dismiss_alert(self.key)
