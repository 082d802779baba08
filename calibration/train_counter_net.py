"""Train the counter's patch net (``vision/counter/patch_net.onnx``) on the tuning renders.

Every counted patch of the tuning scenes (:func:`calibration.fit_counter_doubt.tuning_scenes`: the
held-out rule of ``bench/heldout.py`` applied, held-out seeds refused) is cut out as the counter
cuts it (:func:`vision.counter.patch_net.crops`) and labelled with the cubes it truly holds
(:func:`calibration.render_truth.cubes_held`: a range, from the pieces at least a quarter visible to
all the pieces matched to it). The net learns ``P(k cubes)``; the loss is minus the log of the
probability it gives the whole range, so a cube that may or may not count costs nothing either way.

The pieces are matched to the patch that shows most of each (``--match shown``, the default), not
to the patch holding its top's centre as the decision model's fit matches them: a cube lying partly
under another has its centre under the upper face while what shows of it may be a sliver beside
it, so by centre the face "holds two" and the sliver "none", though the picture shows one cube in
each. The net judges the picture, so it is taught what the picture shows; the forest, which sets
trust, keeps the centre's doubt on such faces (``calibration/render_truth.py``). Out of fold on the
415 tuning scenes, with the shipped rule (the net moves counts, the forest trusts), three training
seeds: 350, 346 and 352 scenes right, against 342, 345 and 349 taught by centre; trusted alike
(docs/counter.md, *The patch net*).

Isolated single faces are most of the patches and almost never wrong: a quarter of them is kept,
each weighing four, so an epoch costs a third. ``--votes`` writes each patch's ``P(off by -1, 0,
+1)`` from a net that never saw its scene (five folds), for ``calibration/fit_counter_doubt.py
--net-votes``, which reports the tuning figures with those votes blended in (the trust bar stays
the forest's: vision.counter.doubt.DoubtModel.assess). Needs PyTorch and ONNX (the optional ``train``
extra; docs/counter.md, *The patch net*), on the CPU (about ten minutes on two cores); CI never
trains::

    .venv/bin/python -m calibration.train_counter_net --extra RENDERS ... --votes net_votes.npz

``--widths C1,C2,C3,C4`` sets the four convolutions' channels of a net trained from scratch
(32,64,96,128 tried on 2026-12-07 and not shipped: docs/counter.md, *A wider net, not shipped*).
``--fine-tune [ONNX]`` trains the shipped net (or that file's) further instead of from scratch, so
that it keeps what it learned from render sets no longer at hand; tried on 2026-12-03 and not
shipped (docs/counter.md, *Trained further on new sets, not shipped*).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.fit_counter_doubt import read_tuning_scenes
from calibration.render_truth import MATCHES, cubes_held
from vision.counter.patch_net import MAX_CUBES, NET_FILE, PLANES, SIZE, crops, deltas

WIDTHS = (16, 32, 48, 64)  # channels of the four convolutions
EPOCHS = 40
# Fine-tuning the shipped net (``--fine-tune``): fewer epochs at a lower peak rate, so that it keeps
# what it learned from render sets no longer at hand (seeds 6060, 8181, 9595: docs/counter.md).
FINE_TUNE_EPOCHS = 10
RATE = 4e-3  # the one-cycle schedule's peak learning rate, training from scratch
FINE_TUNE_RATE = 1e-3
FOLDS = 5
EASY_KEPT = 0.25  # share of isolated single faces trained on (each weighs 1 / EASY_KEPT)
BATCH = 128
SEED = 9
MATCH = "shown"  # how the pieces are matched to patches for the labels (see above; render_truth.MATCHES)


@dataclass
class Patches:
    """Every counted patch of the tuning scenes: its crop (uint8 planes), the cubes it truly holds
    (lo, hi), the stages' count and kind, and its scene."""

    planes: NDArray[np.uint8]
    held: NDArray[np.int64]
    counted: NDArray[np.int64]
    kinds: NDArray[Any]
    scene: NDArray[np.int64]
    names: list[str]
    match: str = MATCH  # how the pieces were matched to patches

    def save(self, path: Path) -> None:
        np.savez_compressed(path, planes=self.planes, held=self.held, counted=self.counted, kinds=self.kinds,
                            scene=self.scene, names=np.array(self.names), match=np.array(self.match))

    @classmethod
    def load(cls, path: Path) -> Patches:
        d = np.load(path)
        match = str(d["match"]) if "match" in d.files else "centre"  # caches made before the choice
        return cls(d["planes"], d["held"], d["counted"], d["kinds"], d["scene"], [str(n) for n in d["names"]], match)


def collect(shared: Path, extra: list[Path], by: str = MATCH) -> Patches:
    """The patches of every usable clean tuning scene, as the stages read them (the same scenes, in
    the same order, as :func:`calibration.fit_counter_doubt.collect`, less those with no patch),
    labelled with the pieces matched to them ``by`` one of ``MATCHES``."""
    planes: list[NDArray[np.uint8]] = []
    held: list[tuple[int, int]] = []
    counted: list[int] = []
    kinds: list[str] = []
    scene: list[int] = []
    names: list[str] = []
    for name, meta, frame, patches in read_tuning_scenes(shared, extra):
        if not patches:
            continue
        planes.append(np.round(crops(frame, patches) * 255).astype(np.uint8))
        held += cubes_held(patches, meta, by)[0]
        counted += [count.n for _, count in patches]
        kinds += [count.kind for _, count in patches]
        scene += [len(names)] * len(patches)
        names.append(name)
        if len(names) % 50 == 0:
            print(f"  {len(names)} scenes, {sum(len(p) for p in planes)} patches so far", flush=True)
    return Patches(np.concatenate(planes), np.asarray(held, np.int64), np.asarray(counted, np.int64),
                   np.asarray(kinds), np.asarray(scene, np.int64), names, by)


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("training the patch net needs PyTorch and ONNX: pip install -e '.[train]'") from None
    return torch


def network(widths: tuple[int, ...] = WIDTHS) -> Any:
    """Four 3 x 3 convolutions (three of stride 2: 64 -> 8 pixels) with batch norm, then the mean
    over the map and one linear layer to ``MAX_CUBES + 1`` classes."""
    torch = _torch()
    nn = torch.nn
    layers: list[Any] = []
    cin = PLANES
    for i, w in enumerate(widths):
        layers += [nn.Conv2d(cin, w, 3, 2 if i < 3 else 1, 1), nn.BatchNorm2d(w), nn.ReLU()]
        cin = w
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, MAX_CUBES + 1)]
    return nn.Sequential(*layers)


def easy(p: Patches) -> NDArray[np.bool_]:
    """Isolated single faces the stages read as one cube, that hold one cube."""
    return np.asarray((p.kinds == "face") & (p.counted == 1) & (p.held[:, 0] == 1) & (p.held[:, 1] == 1))


def from_onnx(path: Path = NET_FILE) -> Any:
    """The net of an exported ONNX file, as a :func:`network` to train further, of the widths its
    convolutions were trained with (``--widths``). The export folds each batch norm into the
    convolution before it, so the batch norms are set to pass their input through unchanged and
    are frozen (:func:`_freeze_batch_norms`)."""
    torch = _torch()
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    (gemm,) = [n for n in graph.node if n.op_type == "Gemm"]
    if len(convs) != len(WIDTHS):
        raise SystemExit(f"{path} is not a net of this shape ({len(convs)} convolutions, {len(WIDTHS)} expected): "
                         "train one from scratch (without --fine-tune)")
    net = network(tuple(int(weights[node.input[1]].shape[0]) for node in convs))
    layers = list(net)
    own_convs = [m for m in layers if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in layers if isinstance(m, torch.nn.BatchNorm2d)]
    linear = layers[-1]
    with torch.no_grad():
        for conv, node, norm in zip(own_convs, convs, norms, strict=True):
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]].copy()))
            conv.bias.copy_(torch.from_numpy(weights[node.input[2]].copy()))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.zero_()
        linear.weight.copy_(torch.from_numpy(weights[gemm.input[1]].copy()))
        linear.bias.copy_(torch.from_numpy(weights[gemm.input[2]].copy()))
    _freeze_batch_norms(net)
    net.eval()
    return net


def _freeze_batch_norms(net: Any) -> None:
    torch = _torch()
    for m in net:
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
            m.weight.requires_grad_(False)
            m.bias.requires_grad_(False)


def train(p: Patches, rows: NDArray[np.bool_], epochs: int = EPOCHS, seed: int = SEED, start: Any | None = None,
          rate: float = RATE, widths: tuple[int, ...] = WIDTHS) -> Any:
    """A net trained on the patches ``rows`` (a quarter of the easy ones among them kept): from
    scratch, of ``widths``, or further from ``start`` (:func:`from_onnx`, its batch norms frozen, its
    widths its own) at peak ``rate``."""
    torch = _torch()
    F = torch.nn.functional
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    is_easy = easy(p)
    keep = rows & (~is_easy | (rng.random(len(rows)) < EASY_KEPT))
    x = torch.from_numpy(p.planes[keep]).float() / 255.0
    allowed = np.zeros((int(keep.sum()), MAX_CUBES + 1), np.float32)
    for i, (lo, hi) in enumerate(np.minimum(p.held[keep], MAX_CUBES)):
        allowed[i, lo:hi + 1] = 1.0
    log_allowed = torch.from_numpy(np.log(allowed + 1e-12))
    weight = torch.from_numpy(np.where(is_easy[keep], 1.0 / EASY_KEPT, 1.0).astype(np.float32))
    net = network(widths) if start is None else start
    steps = epochs * ((len(x) + BATCH - 1) // BATCH)
    opt = torch.optim.AdamW([w for w in net.parameters() if w.requires_grad], rate / 2, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, rate, total_steps=steps)
    for _ in range(epochs):
        net.train()
        if start is not None:
            _freeze_batch_norms(net)
        order = torch.randperm(len(x))
        for i in range(0, len(x), BATCH):
            idx = order[i:i + BATCH]
            batch = torch.rot90(x[idx], int(rng.integers(4)), (2, 3))  # the view has no up: any quarter turn,
            if rng.random() < 0.5:  # and either hand
                batch = torch.flip(batch, (3,))
            log_p = F.log_softmax(net(batch), 1)
            loss = -torch.logsumexp(log_p + log_allowed[idx], 1)
            loss = (loss * weight[idx]).sum() / weight[idx].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    net.eval()
    return net


def predict(net: Any, planes: NDArray[np.uint8]) -> NDArray[np.float64]:
    """``P(k cubes)`` per crop, one pass as the counter runs it (averaging the four quarter turns
    trusted a few more tuning scenes out of fold, at four times the cost a frame)."""
    torch = _torch()
    out = []
    with torch.no_grad():
        for i in range(0, len(planes), 512):
            x = torch.from_numpy(planes[i:i + 512]).float() / 255.0
            out.append(torch.softmax(net(x), 1).numpy())
    return np.asarray(np.concatenate(out), np.float64)


def out_of_fold(p: Patches, epochs: int = EPOCHS, fine_tune: Path | None = None,
                widths: tuple[int, ...] = WIDTHS) -> NDArray[np.float64]:
    """Each patch's ``P(k cubes)`` from a net trained without its scene's fold (fine-tuned from
    ``fine_tune`` without it: that net may have seen the fold before, so the votes are out of fold
    only for the sets it never saw)."""
    out = np.zeros((len(p.planes), MAX_CUBES + 1))
    fold = p.scene % FOLDS
    for k in range(FOLDS):
        start = time.time()
        test = fold == k
        if fine_tune is None:
            net = train(p, ~test, epochs, SEED + k, widths=widths)
        else:
            net = train(p, ~test, epochs, SEED + k, from_onnx(fine_tune), FINE_TUNE_RATE)
        out[test] = predict(net, p.planes[test])
        print(f"  fold {k + 1} of {FOLDS}: {time.time() - start:.0f} s", flush=True)
    return out


def export(net: Any, path: Path) -> None:
    """The net with a softmax on its answer, as ONNX (opset 13) for OpenCV's DNN module."""
    torch = _torch()
    model = torch.nn.Sequential(net, torch.nn.Softmax(dim=1)).eval()
    torch.onnx.export(model, torch.zeros(1, PLANES, SIZE, SIZE), str(path), input_names=["crops"],
                      output_names=["cubes"], dynamic_axes={"crops": {0: "patches"}, "cubes": {0: "patches"}},
                      opset_version=13, dynamo=False)


def _widths(text: str) -> tuple[int, ...]:
    """``--widths``: four positive channel counts, comma-separated."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not four whole numbers separated by commas") from None
    if len(widths) != 4 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: the net has four convolutions, each of one channel or more")
    return widths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared")
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="another render set to tune on (never one rendered with a held-out seed)")
    ap.add_argument("--cache", type=Path, help="keep the tuning patches' crops here (npz) and reuse them")
    ap.add_argument("--votes", type=Path, help="write each patch's out-of-fold P(off by -1, 0, +1) here (npz)")
    ap.add_argument("--epochs", type=int, help=f"passes over the patches (default {EPOCHS}, {FINE_TUNE_EPOCHS} with --fine-tune)")
    ap.add_argument("--fine-tune", type=Path, nargs="?", const=NET_FILE, metavar="ONNX",
                    help="train further the net of this file (default: the shipped one) instead of from scratch")
    ap.add_argument("--out", type=Path, default=NET_FILE)
    ap.add_argument("--match", choices=MATCHES, default=MATCH,
                    help="label each patch with the pieces it shows most of (the shipped net) or whose top's centre it holds")
    ap.add_argument("--widths", type=_widths, default=WIDTHS, metavar="C1,C2,C3,C4",
                    help=f"channels of the four convolutions, trained from scratch (default {','.join(map(str, WIDTHS))}; "
                         "32,64,96,128 was tried on 2026-12-07 and not shipped: docs/counter.md)")
    args = ap.parse_args(argv)
    if args.fine_tune is not None and args.widths != WIDTHS:
        ap.error("--widths is for a net trained from scratch; --fine-tune keeps the shape of the net it starts from")
    cv2.setNumThreads(1)
    if args.cache and args.cache.is_file():
        patches = Patches.load(args.cache)
        if patches.match != args.match:
            raise SystemExit(f"{args.cache} holds patches labelled by {patches.match}, not {args.match}: "
                             "delete it or give --match " + patches.match)
    else:
        patches = collect(args.shared, args.extra, args.match)
        if args.cache:
            patches.save(args.cache)
    print(f"{len(patches.planes)} patches of {len(patches.names)} tuning scenes", flush=True)
    _torch().set_num_threads(2)
    if args.votes:
        cubes_p = out_of_fold(patches, args.epochs or (EPOCHS if args.fine_tune is None else FINE_TUNE_EPOCHS), args.fine_tune,
                              args.widths)
        held = np.minimum(patches.held, MAX_CUBES)
        k = np.arange(MAX_CUBES + 1)[None, :]
        covered = (cubes_p * ((k >= held[:, :1]) & (k <= held[:, 1:]))).sum(axis=1)  # P(the truth's range)
        votes = deltas(cubes_p, patches.counted.tolist())
        np.savez_compressed(args.votes, names=np.array(patches.names), scene=patches.scene, votes=votes)
        print(f"wrote {args.votes}: out of fold, the truth's probability {np.exp(np.log(np.maximum(covered, 1e-4)).mean()):.4f} "
              f"(geometric mean); the likeliest count right on {np.mean((cubes_p.argmax(1) >= held[:, 0]) & (cubes_p.argmax(1) <= held[:, 1])):.4f} of the patches")
    if args.fine_tune is not None:
        epochs = args.epochs or FINE_TUNE_EPOCHS
        net = train(patches, np.ones(len(patches.planes), bool), epochs, SEED, from_onnx(args.fine_tune), FINE_TUNE_RATE)
    else:
        net = train(patches, np.ones(len(patches.planes), bool), args.epochs or EPOCHS, SEED, widths=args.widths)
    export(net, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
