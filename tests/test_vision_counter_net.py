"""Issue 9: the patch net, a small convolutional net that sees each counted patch.

What it is given (the crop's five planes, centred on the patch), how its answer ``P(k cubes)``
becomes ``P(off by -1, 0, +1)`` against the stages' count, that the shipped net loads and is small,
that it is asked only about patches the forest is not sure of, and that on tuning renders it reads
the patches as the ground truth has them. Render scenes are tuning scenes of
``../shared/data/tray_train`` (never ``bench/heldout.py``'s held-out ones).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import train_counter_net
from calibration.render_truth import cubes_held
from vision.counter.decide import model_patches
from vision.counter.doubt import MODEL_PATH, DoubtModel, net_looks
from vision.counter.frame import Core, Frame
from vision.counter.merged import Count
from vision.counter.patch_net import MAX_CUBES, NET_FILE, PLANES, SIZE, WINDOW_MM, PatchNet, crops, deltas
from vision.counter.tuning import PPM
from vision.imageio import read_image


def _square(colour: str, x: float, y: float, side_mm: float = 9.0) -> Core:
    h = side_mm * PPM / 2
    contour = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.int32)
    return Core(colour, side_mm**2, side_mm / 2, 1.0, 0.64, 50.0, contour, (x, y), length_mm=side_mm, width_mm=side_mm)


def _frame_with_two_red_faces() -> tuple[Frame, Core]:
    tray = np.full((300, 420, 3), 200, np.uint8)
    mask = np.zeros((300, 420), np.uint8)
    for x in (150, 150 + 12 * PPM):  # two faces 12 mm apart, centre to centre
        h = int(4.5 * PPM)
        cv2.rectangle(tray, (int(x) - h, 150 - h), (int(x) + h, 150 + h), (40, 40, 200), -1)
        cv2.rectangle(mask, (int(x) - h, 150 - h), (int(x) + h, 150 + h), 1, -1)
    frame = Frame(None, None, tray, None)  # type: ignore[arg-type]  # the crops read the views only
    frame.colour_boxes = {"red": (mask[100:200, 100:300].copy(), 100, 100)}
    return frame, _square("red", 150, 150)


def test_a_crop_is_centred_on_its_patch_with_its_colour_around_it() -> None:
    frame, core = _frame_with_two_red_faces()
    (planes,) = crops(frame, [(core, Count(1, "face", faces=1.0))])
    assert planes.shape == (PLANES, SIZE, SIZE) and planes.dtype == np.float32
    assert planes.min() >= 0.0 and planes.max() <= 1.0
    mid, px_per_mm = SIZE // 2, SIZE / WINDOW_MM
    right = int(mid + 12 * px_per_mm)  # the other face's centre in the crop
    # The picture: the face in the middle in its colour (BGR), the plate beside it.
    assert np.allclose(planes[:3, mid, mid], np.array([40, 40, 200]) / 255, atol=0.02)
    assert np.allclose(planes[:3, mid, int(mid + 6 * px_per_mm)], 200 / 255, atol=0.02)
    # The patch: this face only, about 9 mm across.
    assert planes[3, mid, mid] == pytest.approx(1.0) and planes[3, mid, right] == 0.0
    assert (planes[3, mid] > 0.5).sum() == pytest.approx(9 * px_per_mm, abs=2)
    # Its colour: both faces (the colour's box lies elsewhere in the view than the crop's origin).
    assert planes[4, mid, mid] == pytest.approx(1.0) and planes[4, mid, right] == pytest.approx(1.0)
    assert planes[4, 2, 2] == 0.0


def test_the_nets_cubes_against_the_stages_count_give_the_off_by() -> None:
    cubes_p = np.array([[0.0, 0.1, 0.7, 0.2, 0.0, 0.0, 0.0]])
    assert np.allclose(deltas(cubes_p, [2]), [[0.1, 0.7, 0.2]])
    assert np.allclose(deltas(cubes_p, [1]), [[0.0, 0.1, 0.9]])  # two or three cubes: one or more short
    assert np.allclose(deltas(cubes_p, [3]), [[0.8, 0.2, 0.0]])
    assert np.allclose(deltas(cubes_p, [9]), [[1.0, 0.0, 0.0]])  # a count past the classes: the last class


def test_the_shipped_net_loads_is_small_and_answers_per_patch() -> None:
    assert NET_FILE.stat().st_size < 5_000_000
    model = DoubtModel.load()
    assert model.net is not None and 0.0 < model.net_weight < 1.0
    frame, core = _frame_with_two_red_faces()
    cubes_p = model.net.cubes(crops(frame, [(core, Count(1, "face", faces=1.0))] * 2))
    assert cubes_p.shape == (2, MAX_CUBES + 1) and np.allclose(cubes_p.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="crops"):
        model.net.cubes(np.zeros((1, 3, SIZE, SIZE), np.float32))


def test_a_model_fitted_with_a_net_that_is_missing_says_so(tmp_path: Path) -> None:
    data = json.loads(MODEL_PATH.read_text())
    data["patch_net"] = "absent.onnx"
    path = tmp_path / "doubt_model.json"
    path.write_text(json.dumps(data))
    (tmp_path / str(data["patch_model"])).write_bytes((MODEL_PATH.parent / str(data["patch_model"])).read_bytes())
    with pytest.raises(FileNotFoundError, match="absent.onnx"):
        DoubtModel.load(path)


def test_a_corrupt_net_file_is_named_in_the_error(tmp_path: Path) -> None:
    broken = tmp_path / "patch_net.onnx"
    broken.write_bytes(NET_FILE.read_bytes()[:5000])
    with pytest.raises(ValueError, match="patch_net.onnx cannot be read"):
        PatchNet.load(broken)


class _Forest:
    """A forest that votes as it is told (the patch forest's interface)."""

    def __init__(self, votes: np.ndarray) -> None:
        self.votes = votes

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        return self.votes[: len(rows)]


class _Net:
    """A patch net that answers as it is told and records which patches it was asked about."""

    def __init__(self, answer: list[float]) -> None:
        self.answer = np.asarray(answer)
        self.asked: list[list[Core]] = []

    def deltas(self, frame: Frame, patches: list[tuple[Core, Count]]) -> np.ndarray:
        self.asked.append([core for core, _ in patches])
        return np.tile(self.answer, (len(patches), 1))


def test_the_net_is_asked_only_about_cube_patches_the_forest_is_not_sure_of() -> None:
    sure, unsure = [0.0, 1.0, 0.0], [0.0, 0.8, 0.2]
    a_face, a_pawn = (_square("red", 60, 60), Count(1, "face", faces=1.0)), (_square("red", 60, 60), Count(0, "pawn"))
    row = (_square("red", 200, 60, WINDOW_MM - 1.0), Count(4, "touching", lo=3, hi=5, faces=4.0))  # wider than it sees
    assert net_looks(np.array([sure, unsure, unsure, unsure]), [a_face, a_face, a_pawn, row]).tolist() == [
        False, True, False, False]
    face = [0.0, 0.0, 1.0, 0.0, 0.0]
    net = _Net([0.0, 0.2, 0.8])
    model = DoubtModel({"face": face, "touching": face}, kind_weight=0.1, net_weight=0.5, net=net,
                       patches=_Forest(np.array([sure, unsure])))  # type: ignore[arg-type]
    patches = [(_square("red", 60, 60), Count(1, "face", faces=1.0)),
               (_square("red", 160, 60, 12.0), Count(2, "touching", lo=2, hi=3, faces=2.3))]
    frame = Frame(None, None, np.zeros((300, 420, 3), np.uint8), None)  # type: ignore[arg-type]
    frame.gray = np.zeros((300, 420), np.uint8)
    forest_p = model.forest_votes(patches, frame)
    assert forest_p is not None
    seen = model.with_net(patches, forest_p, frame)
    assert seen is not None and net.asked == [[patches[1][0]]]
    first, second = model.tables(patches, seen)
    assert np.allclose(first, 0.9 * np.array([0.0, 0.0, 1.0, 0.0, 0.0]) + 0.1 * np.array(face))
    assert np.allclose(second, 0.9 * np.array([0.0, 0.0, 0.5, 0.5, 0.0]) + 0.1 * np.array(face))


def test_the_net_moves_a_count_but_only_the_forests_verdict_trusts() -> None:
    face = [0.0, 0.0, 1.0, 0.0, 0.0]
    model = DoubtModel({"face": face, "touching": face}, trust_p=0.9, doubt_min=0.02)
    items = [("green", Count(1, "face", faces=1.0)), ("green", Count(2, "touching", lo=2, hi=3, faces=2.4))]
    unsure = [np.array(face), np.array([0.0, 0.0, 0.8, 0.2, 0.0])]
    sure = [np.array(face), np.array([0.0, 0.0, 0.99, 0.01, 0.0])]
    one_more = [np.array(face), np.array([0.0, 0.0, 0.05, 0.95, 0.0])]
    alone = model.assess({"green": 3}, items, tables=unsure)
    assert not alone.trusted
    # The net sure of the count the forest doubts: still not trusted, and the doubt is named.
    verdict = model.assess({"green": 3}, items, tables=sure, alone=alone)
    assert verdict.cubes == {"green": 3} and not verdict.trusted and verdict.p_right == alone.p_right
    assert "green" in verdict.alternatives
    # Both sure of the same count: trusted.
    trusted_alone = model.assess({"green": 3}, items, tables=sure)
    assert model.assess({"green": 3}, items, tables=sure, alone=trusted_alone).trusted
    # The net sure of one cube more where the forest is sure of the count: moved, not trusted.
    moved = model.assess({"green": 3}, items, tables=one_more, alone=trusted_alone)
    assert moved.cubes == {"green": 4} and not moved.trusted and moved.alternatives
    assert moved.p_right <= trusted_alone.p_right


def test_the_judge_moves_the_count_with_the_net_and_trusts_only_on_the_forests_verdict() -> None:
    """``DoubtModel.judge``, as the counter and the fitting script both call it: the forest unsure of
    the touching faces, the net sure of one cube more: the count moves, and the reading is not
    trusted though the blend alone would trust it; the net's votes given (as the fitting script gives them) judge as the net run does;
    with the forest sure and no net, the forest's verdict stands and trusts."""
    face = [0.0, 0.0, 1.0, 0.0, 0.0]
    sure, unsure = [0.0, 1.0, 0.0], [0.0, 0.7, 0.3]
    net = _Net([0.0, 0.0, 1.0])
    model = DoubtModel({"face": face, "touching": face}, trust_p=0.9, doubt_min=0.02, kind_weight=0.0, net_weight=0.9,
                       net=net, patches=_Forest(np.array([sure, unsure])))  # type: ignore[arg-type]
    patches = [(_square("green", 60, 60), Count(1, "face", faces=1.0)),
               (_square("green", 160, 60, 12.0), Count(2, "touching", lo=2, hi=3, faces=2.3))]
    frame = Frame(None, None, np.zeros((300, 420, 3), np.uint8), None)  # type: ignore[arg-type]
    frame.gray = np.zeros((300, 420), np.uint8)
    verdict, tables = model.judge({"green": 3}, patches, True, None, frame)
    assert net.asked == [[patches[1][0]]]
    assert np.allclose(tables[1], [0.0, 0.0, 0.07, 0.93, 0.0])
    assert verdict.cubes == {"green": 4} and not verdict.trusted
    items = [(core.colour, count) for core, count in patches]
    assert model.assess({"green": 3}, items, True, tables).trusted  # sure enough on the blend alone: vetoed
    given, _ = model.judge({"green": 3}, patches, True, None, forest_p=np.array([sure, unsure]),
                           net_p=np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    assert given == verdict
    model.net_weight, model.patches = 0.0, _Forest(np.array([sure, sure]))  # type: ignore[assignment]
    alone, tables = model.judge({"green": 3}, patches, True, None, frame)
    assert alone.cubes == {"green": 3} and alone.trusted
    assert np.allclose(tables[1], np.array(face))

# -- on tuning renders ----------------------------------------------------------------------------

def test_on_tuning_renders_the_net_reads_the_patches_as_the_truth_has_them(train_counter, tray_train) -> None:
    """The crops the counter cuts are the crops the net was trained on: on these tuning scenes (a
    black pile whose patches the stages read wrong three times, and three lighter scenes) the net's
    likeliest count lies in the truth's range for nearly every patch. Crops cut a pixel or a plane
    amiss would not."""
    net = PatchNet.load()
    assert net is not None
    right, in_range = [], []
    for name in ("t0001", "t0002", "t0004", "t0005"):
        meta = json.loads((tray_train / "test" / f"{name}.json").read_text())
        _, frame = train_counter.read(read_image(tray_train / "test" / f"{name}.jpg"))
        assert frame is not None
        patches = model_patches(train_counter.prepared, frame.debug["counted"])
        held, _ = cubes_held(patches, meta, by="shown")  # as the net was taught (train_counter_net --match)
        for p, (lo, hi) in zip(net.cubes(crops(frame, patches)), held, strict=True):
            right.append(lo <= int(p.argmax()) <= hi)
            in_range.append(float(p[lo:hi + 1].sum()))
    assert len(right) >= 50
    assert np.mean(right) >= 0.9 and np.mean(in_range) >= 0.85


def test_the_nets_training_cache_keeps_how_its_patches_were_labelled(tmp_path: Path) -> None:
    """The net is taught what each patch shows (``--match shown``); crops cached with labels matched
    another way are refused by name before any training starts, and a cache from before the choice
    reads as matched by centre, as it was."""
    patches = train_counter_net.Patches(np.zeros((2, PLANES, SIZE, SIZE), np.uint8), np.array([[1, 1], [0, 1]]),
                                        np.array([1, 1]), np.array(["face", "small"]), np.array([0, 0]), ["t0001"])
    assert patches.match == "shown"
    cache = tmp_path / "crops.npz"
    patches.save(cache)
    assert train_counter_net.Patches.load(cache).match == "shown"
    with pytest.raises(SystemExit, match="labelled by shown, not centre"):
        train_counter_net.main(["--cache", str(cache), "--match", "centre", "--out", str(tmp_path / "net.onnx")])
    old = tmp_path / "old.npz"
    np.savez_compressed(old, planes=patches.planes, held=patches.held, counted=patches.counted, kinds=patches.kinds,
                        scene=patches.scene, names=np.array(patches.names))
    assert train_counter_net.Patches.load(old).match == "centre"


def test_the_shipped_net_read_back_to_train_further_answers_as_shipped() -> None:
    """``train_counter_net --fine-tune`` starts from the shipped ONNX file, whose batch norms the
    export folded into its convolutions: read back, the net gives OpenCV's answers. Needs the
    optional ``train`` extra (PyTorch, ONNX), which CI does not install."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    planes = np.random.default_rng(4).integers(0, 256, (6, PLANES, SIZE, SIZE), dtype=np.uint8)
    ours = train_counter_net.predict(train_counter_net.from_onnx(NET_FILE), planes)
    net = PatchNet.load()
    assert net is not None
    assert np.allclose(ours, net.cubes(planes.astype(np.float32) / 255.0), atol=1e-4)


def test_a_net_of_other_widths_is_read_back_in_its_own_shape(tmp_path: Path) -> None:
    """A net trained with ``--widths`` and exported can be trained further (``--fine-tune FILE``):
    its convolutions' widths are read from the file, not assumed to be the shipped ones. Needs the
    optional ``train`` extra, which CI does not install."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    torch.manual_seed(3)
    wide = train_counter_net.network((8, 24, 40, 56)).eval()
    path = tmp_path / "wide.onnx"
    train_counter_net.export(wide, path)
    planes = np.random.default_rng(5).integers(0, 256, (6, PLANES, SIZE, SIZE), dtype=np.uint8)
    read_back = train_counter_net.from_onnx(path)
    widths = [m.out_channels for m in read_back if isinstance(m, torch.nn.Conv2d)]
    assert widths == [8, 24, 40, 56]
    assert np.allclose(train_counter_net.predict(read_back, planes), train_counter_net.predict(wide, planes), atol=1e-4)

@pytest.mark.parametrize("widths, said", [("32,64,96", "four convolutions"), ("32,64,x,128", "not four whole numbers"),
                                          ("0,64,96,128", "four convolutions")])
def test_the_nets_widths_are_refused_by_name_when_they_cannot_make_a_net(widths: str, said: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``--widths`` names four convolutions' channels; anything else stops before a patch is read."""
    with pytest.raises(SystemExit) as stop:
        train_counter_net.main(["--widths", widths, "--cache", "/nonexistent/crops.npz"])
    assert stop.value.code == 2
    assert said in capsys.readouterr().err


def test_the_nets_widths_are_for_a_net_trained_from_scratch(capsys: pytest.CaptureFixture[str]) -> None:
    """A net trained further keeps the shape it was shipped in, so ``--widths`` with ``--fine-tune``
    is refused rather than ignored."""
    with pytest.raises(SystemExit):
        train_counter_net.main(["--widths", "32,64,96,128", "--fine-tune"])
    assert "--fine-tune keeps the shape" in capsys.readouterr().err
    assert train_counter_net._widths("16,32,48,64") == train_counter_net.WIDTHS
