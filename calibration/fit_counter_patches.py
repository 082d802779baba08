"""Train the counter's patch forest (``vision/counter/patch_model.yml.gz``) on tuning patches.

Each counted cube patch of the tuning renders (``calibration.fit_counter_doubt.collect``: the held-
out rule of ``bench/heldout.py`` applied) is a row of measures (:func:`vision.counter.patch_model.
features`) and a label: the cubes it was off by against the ground-truth pieces under it (-1, 0,
+1; the rare +-2 folded into +-1). A random forest of OpenCV's ``cv2.ml`` learns them; the
decision model's trust threshold is then set on votes of forests that never saw the scene
(``out_of_fold``), so that the threshold does not rest on patches the forest learned by heart.
Run through ``calibration/fit_counter_doubt.py --forest``; CI never trains.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.counter.patch_model import CLASSES, PatchModel

TREES = 150
DEPTH = 10
MIN_LEAF = 3
FOLDS = 5
SEED = 9  # OpenCV's forest draws its samples from cv2's global generator: seeded for reruns


def train(rows: npt.NDArray[np.float32], deltas: npt.NDArray[np.int32]) -> cv2.ml.RTrees:
    cv2.setRNGSeed(SEED)
    labels = np.clip(deltas, CLASSES[0], CLASSES[-1]).astype(np.int32).reshape(-1, 1)
    var_type = np.array([cv2.ml.VAR_ORDERED] * rows.shape[1] + [cv2.ml.VAR_CATEGORICAL], np.uint8)
    data = cv2.ml.TrainData.create(rows.astype(np.float32), cv2.ml.ROW_SAMPLE, labels, varType=var_type)
    forest: cv2.ml.RTrees = cv2.ml.RTrees.create()
    forest.setMaxDepth(DEPTH)
    forest.setMinSampleCount(MIN_LEAF)
    forest.setActiveVarCount(0)  # sqrt of the features per split
    forest.setCalculateVarImportance(False)
    forest.setTermCriteria((cv2.TERM_CRITERIA_MAX_ITER, TREES, 0.0))
    forest.train(data)
    return forest


def out_of_fold(rows: npt.NDArray[np.float32], deltas: npt.NDArray[np.int32],
                groups: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Each row's class probabilities from a forest trained without its scene's fold."""
    out = np.zeros((len(rows), len(CLASSES)))
    fold = groups % FOLDS
    for k in range(FOLDS):
        test = fold == k
        if test.any() and (~test).any():
            out[test] = PatchModel(train(rows[~test], deltas[~test])).probabilities(rows[test])
    return out
