"""A QR code drawn crisp at any size (one texel per module, nearest-neighbour scaling).

The ``qrcode`` library makes a 1-bit image; Kivy shows a mode "1" image as solid black, so it is
converted to RGB before it becomes a texture (PLATFORM-NOTES)."""
import qrcode
from kivy.graphics.texture import Texture
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.widget import Widget


def qr_texture(data: str) -> Texture:
    q = qrcode.QRCode(border=2, box_size=1, error_correction=qrcode.constants.ERROR_CORRECT_M)
    q.add_data(data)
    q.make(fit=True)
    img = q.make_image(fill_color="black", back_color="white").get_image().convert("RGB")
    tex = Texture.create(size=img.size, colorfmt="rgb")
    tex.blit_buffer(img.tobytes(), colorfmt="rgb", bufferfmt="ubyte")
    tex.flip_vertical()
    tex.mag_filter = "nearest"
    tex.min_filter = "nearest"
    return tex


class QRCode(Widget):
    data = StringProperty("")
    texture = ObjectProperty(None, allownone=True)

    def on_data(self, _inst, value):
        self.texture = qr_texture(value) if value else None
