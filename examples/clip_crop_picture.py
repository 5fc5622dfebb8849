"""Draw what a CLIP encoder sees of a portrait poster under each ``crop=`` option.

Writes ``docs/images/clip-crop.png`` (shown on docs/metrics/CLIPSimilarity.md): a synthetic
2:3 poster with its title at the top, then the 224x224 image CLIP ViT-B-32 receives with
``crop=None`` / ``"center"`` (open_clip's own transform: shorter side to 224, centre square),
``"pad"`` (the whole poster, padded with black) and ``"squash"`` (stretched). The images are
open_clip's transforms applied to the poster, up to the tensor conversion. Needs open_clip;
no weights.

    python examples/clip_crop_picture.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SIZE = 224
OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "clip-crop.png"


def poster(w: int = 400, h: int = 600) -> Image.Image:
    """A plain portrait poster: a title band at the top, a picture, credits at the bottom."""
    img = Image.new("RGB", (w, h))
    draw = ImageDraw.Draw(img)
    for y in range(h):  # a vertical gradient background
        t = y / (h - 1)
        draw.line([(0, y), (w, y)], fill=(int(30 + 60 * t), int(40 + 30 * t), int(90 + 100 * (1 - t))))
    draw.rectangle([0, 20, w, 120], fill=(240, 200, 60))
    draw.text((w // 2, 70), "THE TITLE", fill=(20, 20, 20), anchor="mm", font=ImageFont.load_default(size=56))
    draw.ellipse([80, 190, 320, 430], fill=(200, 80, 70))
    draw.text(
        (w // 2, 540),
        "credits  credits  credits",
        fill=(230, 230, 230),
        anchor="mm",
        font=ImageFont.load_default(size=22),
    )
    return img


def seen(img: Image.Image, mode: str) -> Image.Image:
    """open_clip's eval transform for ``mode`` applied up to (not including) the tensor conversion."""
    import open_clip

    tf = open_clip.image_transform(SIZE, is_train=False, resize_mode=mode)
    for step in tf.transforms:
        if type(step).__name__ in ("MaybeToTensor", "ToTensor"):
            break
        img = step(img)
    return img


def main() -> Path:
    src = poster()
    panels = [("the poster", src.resize((SIZE * src.width // src.height, SIZE), Image.Resampling.BICUBIC))]
    panels += [
        ('crop=None / "center"', seen(src, "shortest")),
        ('crop="pad"', seen(src, "longest")),
        ('crop="squash"', seen(src, "squash")),
    ]
    gap, label = 16, 28
    width = sum(p.width for _, p in panels) + gap * (len(panels) + 1)
    sheet = Image.new("RGB", (width, SIZE + label + 2 * gap), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=15)
    x = gap
    for name, p in panels:
        sheet.paste(p, (x, gap))
        draw.text((x + p.width // 2, gap + SIZE + label // 2 + 2), name, fill=(0, 0, 0), anchor="mm", font=font)
        x += p.width + gap
    OUT.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(OUT, optimize=True)
    return OUT


if __name__ == "__main__":
    print(main())
