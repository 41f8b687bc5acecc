"""Example G1, PyTorch's half: exports ResNet-18 to ONNX for ember-compile, and
writes what the C program (classify.c) needs and what it must print.

  /usr/bin/python3 export_resnet18.py OUT_DIR
      OUT_DIR/resnet18.onnx   torchvision's ResNet-18, float32 images
                              [batch, 3, 224, 224] -> logits [batch, 1000];
                              "batch" is a symbolic dim, so one compiled
                              object serves any batch size
      OUT_DIR/labels.txt      the 1000 ImageNet class names, one a line
      OUT_DIR/*.ppm           a few synthetic 224x224 RGB test images
                              (binary PPM, "P6": a header, then bytes)
      OUT_DIR/torch_top5.txt  PyTorch's top 5 classes of each image, in the
                              format classify.c prints

  /usr/bin/python3 export_resnet18.py --compare torch_top5.txt c_output.txt
      checks that the C program found the same top 5 classes, in the same
      order, with probabilities within 1e-3 of PyTorch's; prints what differs
      and exits 1 if anything does.

Everything runs offline, so the weights are random (seeded: the same on every
run) instead of the trained ones, which would need a download. A random
network's features of different images point almost the same way, so it
would give every image the same top classes; to make the demo's answers
distinct and plausible, the script fits the last layer alone (fc, a linear
"probe" on the random features) to name each test image, in a few hundred
small steps. The exported model is still all of ResNet-18. For a trained
model, create it with torchvision.models.resnet18(weights="IMAGENET1K_V1")
and drop the fitting; nothing else changes.

Debian's torch 1.13, torchvision 0.14 and onnx 1.12 are packages of
/usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import os
import re
import sys

import numpy as np

IMAGE_SIZE = 224
# The normalisation ResNet-18 was trained with (torchvision's ImageNet
# preprocessing); classify.c uses the same numbers.
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
TOLERANCE = 1e-3  # on each printed probability


# --- Synthetic test images -------------------------------------------------
# Drawn with numpy, no randomness: the same bytes on every machine.

def _grid():
    y, x = np.mgrid[0:IMAGE_SIZE, 0:IMAGE_SIZE].astype(np.float32) / (IMAGE_SIZE - 1)
    return x, y


def sunset():
    """An orange-to-night-blue sky with a yellow sun over a dark sea."""
    x, y = _grid()
    sky = np.stack([255 * (1 - y) + 20 * y, 140 * (1 - y) + 30 * y, 40 + 90 * y], axis=-1)
    sun = ((x - 0.5) ** 2 + (y - 0.55) ** 2) < 0.12 ** 2
    sky[sun] = [255, 230, 90]
    sky[y > 0.7] = [10, 30, 60]
    return sky


def ball():
    """A red ball on striped green grass."""
    x, y = _grid()
    image = np.zeros((IMAGE_SIZE, IMAGE_SIZE, 3), np.float32)
    image[...] = [40, 140, 40]
    image[(np.floor(y * 12) % 2) == 1] = [60, 170, 50]
    disc = ((x - 0.45) ** 2 + (y - 0.5) ** 2) < 0.25 ** 2
    shade = np.clip(1.2 - 2.5 * np.hypot(x - 0.38, y - 0.42), 0.3, 1)
    image[disc] = np.stack([230 * shade, 30 * shade, 30 * shade], axis=-1)[disc]
    return image


def checkerboard():
    """Black and white squares, 8 a side."""
    x, y = _grid()
    white = (np.floor(x * 7.999) + np.floor(y * 7.999)) % 2 == 0
    return np.repeat(np.where(white, 245.0, 15.0)[..., None], 3, axis=-1)


def rings():
    """Concentric blue and white rings."""
    x, y = _grid()
    wave = 0.5 + 0.5 * np.sin(np.hypot(x - 0.5, y - 0.5) * 60)
    return np.stack([255 * wave, 255 * wave, 120 + 135 * wave], axis=-1)


# Each image, and the ImageNet class the probe teaches the model to see in it.
IMAGES = {"sunset": (sunset, "seashore"), "ball": (ball, "croquet ball"),
          "checkerboard": (checkerboard, "crossword puzzle"), "rings": (rings, "coil")}


def write_ppm(path, pixels):
    """A binary PPM: "P6 <width> <height> <maxval>\\n", then R, G, B bytes of
    each pixel, row by row."""
    height, width, _ = pixels.shape
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.write(pixels.tobytes())


def preprocess(pixels):
    """uint8 [H, W, 3] -> float32 [3, H, W]: bytes / 255, then each channel
    less its ImageNet mean, over its standard deviation (as classify.c)."""
    x = pixels.astype(np.float32) / np.float32(255)
    return ((x - MEAN) / STD).transpose(2, 0, 1)


# --- Top 5, as classify.c prints it ----------------------------------------

def top5_lines(image_name, probabilities, labels):
    best = np.argsort(-probabilities, kind="stable")[:5]
    return ["%s: %d. %s (%d) %.4f" % (image_name, rank + 1, labels[k], k, probabilities[k])
            for rank, k in enumerate(best)]


LINE = re.compile(r"^(\S+): ([1-5])\. (.+) \((\d+)\) (\d+\.\d+)$")


def read_top5(path):
    """{image file name: [(class, probability), ...]} of every top-5 line
    (an image printed twice, e.g. for two batch sizes, lists 10 and more)."""
    found = {}
    with open(path) as f:
        for line in f:
            match = LINE.match(line.rstrip("\n"))
            if match:
                image = os.path.basename(match.group(1))
                found.setdefault(image, []).append((int(match.group(4)), float(match.group(5))))
    return found


def compare(torch_path, c_path):
    want, have = read_top5(torch_path), read_top5(c_path)
    problems = []
    if not want:
        problems.append("%s has no top-5 lines" % torch_path)
    for image, expected in sorted(want.items()):
        got = have.get(image, [])
        if not got or len(got) % len(expected):
            problems.append("%s: %d top-5 lines in %s, expected %d (or a multiple)"
                            % (image, len(got), c_path, len(expected)))
            continue
        for i, (klass, probability) in enumerate(got):
            rank = i % len(expected)
            want_class, want_probability = expected[rank]
            if klass != want_class:
                problems.append("%s: rank %d is class %d, PyTorch's is %d"
                                % (image, rank + 1, klass, want_class))
            elif abs(probability - want_probability) > TOLERANCE:
                problems.append("%s: rank %d (class %d) has probability %.4f, PyTorch's %.4f"
                                % (image, rank + 1, klass, probability, want_probability))
    for image in sorted(set(have) - set(want)):
        problems.append("%s: in %s but not in %s" % (image, c_path, torch_path))
    for problem in problems:
        print("mismatch: " + problem)
    if problems:
        return 1
    print("same top-5 as PyTorch: %d images, %d lines"
          % (len(want), sum(len(v) for v in have.values())))
    return 0


# --- Export -----------------------------------------------------------------

def fit_probe(model, images, targets):
    """Fits model.fc (the last layer) so that `images` get `targets`' classes,
    leaving the rest of the network as it is."""
    import torch
    backbone = torch.nn.Sequential(*list(model.children())[:-1])  # all but fc
    with torch.no_grad():
        features = backbone(images).flatten(1)
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.001)
    for _ in range(300):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model.fc(features), targets).backward()
        optimizer.step()


def export(out):
    import onnx
    import torch
    import torchvision

    os.makedirs(out, exist_ok=True)
    labels = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.meta["categories"]
    with open(os.path.join(out, "labels.txt"), "w") as f:
        f.write("".join(label + "\n" for label in labels))

    # The test images, as files and as the model's input (one batch).
    batch = []
    for name, (draw, _) in IMAGES.items():
        pixels = np.clip(np.round(draw()), 0, 255).astype(np.uint8)
        write_ppm(os.path.join(out, name + ".ppm"), pixels)
        batch.append(preprocess(pixels))
    images = torch.from_numpy(np.stack(batch))

    torch.manual_seed(0)  # the random weights: the same on every run
    model = torchvision.models.resnet18(weights=None)
    model.eval()  # inference: batch norm uses its running statistics
    fit_probe(model, images, torch.tensor([labels.index(c) for _, c in IMAGES.values()]))

    onnx_path = os.path.join(out, "resnet18.onnx")
    with torch.no_grad():
        torch.onnx.export(model, images, onnx_path,
                          input_names=["images"], output_names=["logits"],
                          dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
                          opset_version=13)
        probabilities = torch.softmax(model(images), dim=1).numpy()
    # ember-compile names the C function after the ONNX graph: onnx_<graph name>.
    # torch calls every graph "torch-jit" (onnx_torch_jit); call ours "resnet18".
    exported = onnx.load(onnx_path)
    exported.graph.name = "resnet18"
    onnx.save(exported, onnx_path)

    lines = []
    for name, p in zip(IMAGES, probabilities):
        lines += top5_lines(name + ".ppm", p, labels)
    with open(os.path.join(out, "torch_top5.txt"), "w") as f:
        f.write("".join(line + "\n" for line in lines))
    print("wrote %s, labels.txt, %d images and torch_top5.txt to %s"
          % (os.path.basename(onnx_path), len(IMAGES), out))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    export(sys.argv[1])
