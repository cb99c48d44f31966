#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.
"""Writes the JSON seeds of the fuzz corpus and tests/simnpu/all-ops.json,
a graph that uses every op (random weights, fixed seed). The .axm seeds
are these graphs compiled with simnpu-compile (see docs/sim-npu.md)."""

import base64
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(4)
# the device ops added later draw from their own generator, so that the
# older seeds' weights stay as they were
rng_ops = random.Random(5)


def b64(data):
    return {"base64": base64.b64encode(bytes(data)).decode()}


def conv_weights(oc, k, ic, r=rng):
    w = [r.randint(-127, 127) & 0xff for _ in range(oc * k * k * ic)]
    b = b"".join(struct.pack("<i", r.randint(-500, 500)) for _ in range(oc))
    return ({"scales": [0.01 + 0.001 * i for i in range(oc)], "data": b64(w)},
            {"data": b64(b)})


def device_ops(q):
    """The third output's branch: the device ops of real models."""
    w6, b6 = conv_weights(8, 1, 8, rng_ops)
    table = [rng_ops.randint(-128, 127) & 0xff for _ in range(256)]
    const = {"name": "table", "shape": [256], "dtype": "i8",
             "data": b64(table)}
    ops = [
        {"name": "c6", "type": "conv2d", "inputs": ["c1"],
         "outputs": ["c6"], "weights": w6, "bias": b6,
         "attrs": {"kernel": [1, 1], "out_channels": 8,
                   "activation": "relu6"}, "quant": q(0.05, -128)},
        {"name": "th", "type": "tanh", "inputs": ["c6"], "outputs": ["th"],
         "quant": q(1.0 / 128, 0)},
        {"name": "hs", "type": "hard_swish", "inputs": ["c1"],
         "outputs": ["hs"]},
        {"name": "hg", "type": "hard_sigmoid", "inputs": ["hs"],
         "outputs": ["hg"], "attrs": {"alpha": 0.25},
         "quant": q(1.0 / 256, -128)},
        {"name": "lr", "type": "leaky_relu", "inputs": ["c1"],
         "outputs": ["lr"], "attrs": {"alpha": 0.1}},
        {"name": "cl", "type": "clip", "inputs": ["lr"], "outputs": ["cl"],
         "attrs": {"min": -0.5, "max": 2.0}},
        {"name": "el", "type": "elu", "inputs": ["cl"], "outputs": ["el"]},
        {"name": "lu", "type": "lut", "inputs": ["el", "table"],
         "outputs": ["lu"]},
        {"name": "df", "type": "sub", "inputs": ["lu", "th"],
         "outputs": ["df"], "quant": q(0.1, 0)},
        {"name": "mx", "type": "maximum", "inputs": ["df", "hg"],
         "outputs": ["mx"]},
        {"name": "mn", "type": "minimum", "inputs": ["mx", "hs"],
         "outputs": ["mn"]},
        {"name": "pd", "type": "pad", "inputs": ["mn"], "outputs": ["pd"],
         "attrs": {"pads": [0, 1, 1, 0, 0, 1, 1, 2], "mode": "edge"}},
        {"name": "rb", "type": "resize", "inputs": ["pd"],
         "outputs": ["rb"], "attrs": {"mode": "bilinear", "size": [7, 5]}},
        {"name": "rn", "type": "resize", "inputs": ["rb"],
         "outputs": ["rn"],
         "attrs": {"size": [14, 9],
                   "coordinate_transformation_mode": "asymmetric",
                   "nearest_mode": "floor"}},
        {"name": "mean", "type": "mean", "inputs": ["rn"],
         "outputs": ["pooled"]},
    ]
    return const, ops


def all_ops():
    w1, b1 = conv_weights(8, 3, 4)
    w2, b2 = conv_weights(8, 3, 1)
    q = lambda s, z: {"scale": s, "zero_point": z}  # noqa: E731
    table, device = device_ops(q)
    return {
        "format": "simnpu-graph", "version": 1, "name": "all-ops",
        "inputs": [{"name": "x", "shape": [1, 8, 8, 4], "dtype": "u8",
                    "layout": "NHWC", "scale": 0.02, "zero_point": 128}],
        "outputs": [
            {"name": "probs", "dtype": "f32", "layout": "NCHW",
             "scale": 1.0 / 256, "zero_point": -128},
            {"name": "crop", "dtype": "u8", "scale": 0.2, "zero_point": 128},
            {"name": "pooled", "dtype": "f32", "scale": 0.02,
             "zero_point": 0},
        ],
        "constants": [{"name": "bias3", "shape": [1, 1, 1, 3], "dtype": "i8",
                       "scale": 0.05, "zero_point": 0,
                       "data": b64([10, 256 - 20, 30])}, table],
        "ops": [
            {"name": "c1", "type": "conv2d", "inputs": ["x"],
             "outputs": ["c1"], "weights": w1, "bias": b1,
             "attrs": {"kernel": [3, 3], "pad": [1, 1, 1, 1],
                       "out_channels": 8}, "quant": q(0.1, 0)},
            {"name": "dw", "type": "conv2d", "inputs": ["c1"],
             "outputs": ["dw"], "weights": w2, "bias": b2,
             "attrs": {"kernel": [3, 3], "pad": [2, 2, 2, 2],
                       "dilation": [2, 2], "groups": 8, "out_channels": 8,
                       "activation": "relu"}, "quant": q(0.1, -128)},
            {"name": "s1", "type": "silu", "inputs": ["dw"],
             "outputs": ["s1"], "quant": q(0.05, -20)},
            {"name": "m1", "type": "maxpool", "inputs": ["s1"],
             "outputs": ["m1"], "attrs": {"kernel": [2, 2], "stride": [2, 2]}},
            {"name": "a1", "type": "avgpool", "inputs": ["m1"],
             "outputs": ["a1"], "attrs": {"kernel": [3, 3],
                                          "pad": [1, 1, 1, 1]}},
            {"name": "ad", "type": "add", "inputs": ["m1", "a1"],
             "outputs": ["ad"], "quant": q(0.1, 0)},
            {"name": "mu", "type": "mul", "inputs": ["ad", "ad"],
             "outputs": ["mu"], "quant": q(0.2, 0)},
            {"name": "sp", "type": "split", "inputs": ["mu"],
             "outputs": ["sa", "sb"], "attrs": {"axis": -1, "sizes": [3, 5]}},
            {"name": "sl", "type": "slice", "inputs": ["sb"],
             "outputs": ["crop"],
             "attrs": {"begin": [0, 1, 1, 0], "size": [1, 2, 3, 5]}},
            {"name": "rs", "type": "resize", "inputs": ["sa"],
             "outputs": ["rs"], "attrs": {"scale": [2, 2]}},
            {"name": "ab", "type": "add", "inputs": ["rs", "bias3"],
             "outputs": ["ab"], "quant": q(0.2, 0)},
            {"name": "cc", "type": "concat", "inputs": ["ab", "c1"],
             "outputs": ["cc"], "attrs": {"axis": 3}, "quant": q(0.1, 0)},
            {"name": "r", "type": "relu", "inputs": ["cc"], "outputs": ["r"],
             "quant": q(0.1, -128)},
            {"name": "sg", "type": "sigmoid", "inputs": ["r"],
             "outputs": ["sg"], "quant": q(1.0 / 256, -128)},
            {"name": "rh", "type": "reshape", "inputs": ["sg"],
             "outputs": ["rh"], "attrs": {"shape": [1, -1, 11]}},
            {"name": "tp", "type": "transpose", "inputs": ["rh"],
             "outputs": ["tp"], "attrs": {"perm": [0, 2, 1]}},
            {"name": "sm", "type": "softmax", "inputs": ["tp"],
             "outputs": ["probs"], "attrs": {"axis": -1}},
        ] + device,
    }


def small_conv():
    w, b = conv_weights(4, 3, 3)
    return {
        "format": "simnpu-graph", "version": 1, "name": "small-conv",
        "inputs": [{"name": "x", "shape": [1, 6, 6, 3], "dtype": "i8",
                    "scale": 0.1, "zero_point": 0}],
        "outputs": [{"name": "y", "dtype": "i8", "scale": 0.1,
                     "zero_point": 0}],
        "ops": [{"name": "c", "type": "conv2d", "inputs": ["x"],
                 "outputs": ["y"], "weights": w, "bias": b,
                 "attrs": {"kernel": [3, 3], "stride": [2, 2],
                           "pad": [1, 1, 1, 1], "out_channels": 4}}],
    }


def main():
    graphs = {"all-ops": all_ops(), "small-conv": small_conv()}
    with open(os.path.join(HERE, "..", "simnpu", "all-ops.json"), "w") as f:
        json.dump(graphs["all-ops"], f, indent=1)
        f.write("\n")
    for name, g in graphs.items():
        with open(os.path.join(HERE, "corpus", "json", name + ".json"),
                  "w") as f:
            json.dump(g, f)
    shape_only = small_conv()
    shape_only["name"] = "shape-only"
    shape_only["estimate_only"] = True
    for op in shape_only["ops"]:
        op.pop("weights", None)
        op.pop("bias", None)
    with open(os.path.join(HERE, "corpus", "json", "shape-only.json"),
              "w") as f:
        json.dump(shape_only, f)
    bad = {
        "not-json": "{\"format\": \"simnpu-graph\", \"version\": 1,",
        "unknown-op": json.dumps(dict(small_conv(), ops=[
            {"name": "z", "type": "fft", "inputs": ["x"],
             "outputs": ["y"]}])),
        "wrong-version": json.dumps(dict(small_conv(), version=9)),
    }
    for name, text in bad.items():
        with open(os.path.join(HERE, "corpus", "json", name + ".json"),
                  "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
