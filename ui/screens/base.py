"""The base of every screen: it is handed the public view and the app, nothing else."""
from kivy.app import App
from kivy.uix.screenmanager import Screen


class ViewScreen(Screen):
    """``update(view)`` is called when the screen is shown and whenever the view changes while
    it is shown. Screens keep no game state of their own."""

    @property
    def app(self):
        return App.get_running_app()

    def update(self, view):
        pass

    def tick(self, now):
        """Called ten times a second while a timer runs (``now`` = session time)."""
