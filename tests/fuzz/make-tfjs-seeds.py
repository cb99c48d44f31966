#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.
"""Writes the seed corpus of fuzz-tfjs (tests/fuzz/corpus/tfjs): small
hand-made TF.js graph models. fuzz-tfjs serves every weight shard from one
256-byte buffer (192 bytes of small floats, then a byte ramp), so each
manifest group needs exactly 256 bytes: float weights first (a filler
makes up 192), then int32 weights uint8-quantised over the ramp."""

import base64
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "tfjs")
SHARD_BYTES = 256
# fuzz-tfjs: floats first, then a byte ramp 0, 1, 2, ...
FLOAT_BYTES = 192
# and last, the int32 paddings [[0, 0], [1, 1], [1, 1], [0, 0]] as bytes
PADS_BYTES = 8


def b64(s):
    return base64.b64encode(s.encode()).decode()


def ints(*v):
    return {"list": {"i": [str(x) for x in v]}}


def placeholder(name, dims):
    return {"name": name, "op": "Placeholder", "attr": {
        "dtype": {"type": "DT_FLOAT"},
        "shape": {"shape": {"dim": [{"size": str(d)} for d in dims]}}}}


def const(name, dims, dtype="DT_FLOAT"):
    return {"name": name, "op": "Const", "attr": {
        "dtype": {"type": dtype},
        "value": {"tensor": {"dtype": dtype, "tensorShape": {
            "dim": [{"size": str(d)} for d in dims]}}}}}


def node(name, op, inputs, **attr):
    return {"name": name, "op": op, "input": inputs, "attr": attr}


def weight(name, shape, dtype="float32", quant=None):
    w = {"name": name, "shape": shape, "dtype": dtype}
    if quant:
        w["quantization"] = quant
    return w


def ints_weight(name, values, shape=None):
    """An int32 weight holding values (an arithmetic progression), uint8-
    quantised over the shard's byte ramp; model() sets min and scale."""
    w = weight(name, [len(values)] if shape is None else shape, "int32",
               {"dtype": "uint8"})
    w["values"] = values
    return w


def nbytes(weights):
    total = 0
    for w in weights:
        n = 1
        for s in w["shape"]:
            n *= s
        q = w.get("quantization", {}).get("dtype")
        total += n * (2 if q in ("float16", "uint16") else
                      1 if q == "uint8" else 4)
    return total


def spatial_pads(name):
    """An int32 [4, 2] weight padding the spatial axes of NHWC by 1 (the
    shard's last bytes)."""
    w = weight(name, [4, 2], "int32", {"dtype": "uint8", "min": 0,
                                        "scale": 1})
    w["pads"] = True
    return w


def model(nodes, weights, signature=None):
    floats = [w for w in weights if "values" not in w and "pads" not in w]
    ramp = [w for w in weights if "values" in w]
    pads = [w for w in weights if w.pop("pads", False)]
    rest = FLOAT_BYTES - nbytes(floats)
    assert rest >= 0 and rest % 4 == 0, rest
    out = floats + ([weight("filler", [rest // 4])] if rest else [])
    offset = 0
    for w in ramp:
        v = w.pop("values")
        step = v[1] - v[0] if len(v) > 1 else 0
        assert all(v[i] == v[0] + i * step for i in range(len(v))), v
        # value = q * scale + min, q = offset + index on the ramp
        w["quantization"]["scale"] = step
        w["quantization"]["min"] = v[0] - offset * step
        offset += len(v)
        out.append(w)
    tail = SHARD_BYTES - FLOAT_BYTES - offset - (PADS_BYTES if pads else 0)
    assert tail >= 0, tail
    if tail:
        out.append(weight("tail", [tail], quant={"dtype": "uint8", "min": 0,
                                                  "scale": 1}))
    out += pads
    m = {"format": "graph-model", "modelTopology": {"node": nodes},
         "weightsManifest": [{"paths": ["group1-shard1of1.bin"],
                              "weights": out}]}
    if signature:
        m["signature"] = signature
    return m


def conv_attrs(padding="SAME", stride=2):
    return dict(strides=ints(1, stride, stride, 1),
                padding={"s": b64(padding)}, data_format={"s": b64("NHWC")},
                dilations=ints(1, 1, 1, 1), explicit_paddings={"list": {}})


def fused(*ops):
    return {"list": {"s": [b64(o) for o in ops]}}


SEEDS = {
    "conv-bias-relu6": model([
        node("Identity", "Identity", ["r"]),
        node("r", "Relu6", ["ba"]),
        node("ba", "BiasAdd", ["c", "b", "^w"],
             data_format={"s": b64("NHWC")}),
        node("c", "Conv2D", ["x", "w:0"], **conv_attrs()),
        const("w", [2, 2, 2, 4]), const("b", [4]),
        placeholder("x", [-1, 5, 6, 2])],
        [weight("w", [2, 2, 2, 4]), weight("b", [4])]),
    "fused-depthwise-pool": model([
        placeholder("x", [1, 8, 8, 2]), const("w", [1, 1, 2, 4]),
        const("b", [4]), const("dw", [2, 2, 4, 1]),
        const("axes", [2], "DT_INT32"),
        node("c", "_FusedConv2D", ["x", "w", "b"],
             fused_ops=fused("BiasAdd", "Relu"), num_args={"i": "1"},
             epsilon={"f": 0}, **conv_attrs("VALID", 1)),
        node("d", "DepthwiseConv2dNative", ["c", "dw"],
             **conv_attrs("SAME", 1)),
        node("p", "MaxPool", ["d"], ksize=ints(1, 2, 2, 1),
             strides=ints(1, 2, 2, 1), padding={"s": b64("SAME")},
             data_format={"s": b64("NHWC")}),
        node("a", "AvgPool", ["d"], ksize=ints(1, 3, 3, 1),
             strides=ints(1, 2, 2, 1), padding={"s": b64("SAME")}),
        node("s", "AddV2", ["p", "a"]),
        node("m", "Mean", ["s", "axes"], keep_dims={"b": False}),
        node("out", "Softmax", ["m"])],
        [weight("w", [1, 1, 2, 4]), weight("b", [4]),
         weight("dw", [2, 2, 4, 1]), ints_weight("axes", [1, 2])]),
    "quantised-reshape": model([
        placeholder("x", [1, 2, 3, 4]), const("h", [4]), const("q", [4]),
        const("shape", [2], "DT_INT32"), const("perm", [2], "DT_INT32"),
        const("pads", [4, 2], "DT_INT32"), const("b", [3], "DT_INT32"),
        const("e", [3], "DT_INT32"), const("st", [3], "DT_INT32"),
        const("axis", [], "DT_INT32"), const("one", [], "DT_FLOAT"),
        node("a", "Add", ["x", "h"]), node("m", "Mul", ["a", "q"]),
        node("pd", "PadV2", ["m", "pads", "one"]),
        node("ss", "StridedSlice", ["pd", "b", "e", "st"],
             begin_mask={"i": "1"}, end_mask={"i": "5"},
             new_axis_mask={"i": "2"}),
        node("r", "Reshape", ["m", "shape"]),
        node("t", "Transpose", ["r", "perm"]),
        node("cc", "ConcatV2", ["t", "t", "axis"], N={"i": "2"})],
        [weight("h", [4], quant={"dtype": "float16"}),
         weight("q", [4], quant={"dtype": "uint8", "min": -1,
                                 "scale": 0.5}),
         ints_weight("shape", [6, 4]), ints_weight("perm", [1, 0]),
         ints_weight("pads", [1] * 8, [4, 2]), ints_weight("b", [0, 1, 2]),
         ints_weight("e", [1, 3, 5]), ints_weight("st", [1, 1, 1]),
         ints_weight("axis", [1], []), weight("one", [])],
        signature={"outputs": {"cc:0": {"name": "cc:0"},
                               "ss": {"name": "ss"}}}),
    "resize-shape-topk": model([
        placeholder("x", [1, 2, 3, 4]), node("sh", "Shape", ["x"]),
        const("b", [1], "DT_INT32"), const("e", [1], "DT_INT32"),
        const("st", [1], "DT_INT32"), const("two", [], "DT_INT32"),
        node("hw", "StridedSlice", ["sh", "b", "e", "st"]),
        node("sz", "Mul", ["hw", "two"]),
        node("up", "ResizeBilinear", ["x", "sz"],
             align_corners={"b": False}, half_pixel_centers={"b": True}),
        node("nn", "ResizeNearestNeighbor", ["x", "sz"],
             align_corners={"b": True}),
        node("eq", "Equal", ["up", "nn"]),
        node("cast", "Cast", ["eq"], DstT={"type": "DT_FLOAT"}),
        node("top", "TopKV2", ["cast", "two"]),
        node("keep", "Sigmoid", ["up"])],
        [ints_weight("b", [1]), ints_weight("e", [3]),
         ints_weight("st", [1]), ints_weight("two", [2], [])]),
    "matmul-batchnorm": model([
        placeholder("x", [-1, 4]), const("k", [4, 3]), const("bias", [3]),
        const("k2", [4, 3]),
        node("mm", "_FusedMatMul", ["x", "k", "bias"],
             fused_ops=fused("BiasAdd", "Relu"), num_args={"i": "1"},
             transpose_a={"b": False}, transpose_b={"b": False}),
        node("mm2", "MatMul", ["mm", "k2"], transpose_b={"b": True}),
        node("sq", "Square", ["mm2"]), node("rs", "Rsqrt", ["sq"]),
        node("sg", "Sigmoid", ["rs"]),
        placeholder("y", [1, 2, 2, 3]), const("s", [3]), const("o", [3]),
        const("mu", [3]), const("v", [3]),
        node("bn", "FusedBatchNormV3", ["y", "s", "o", "mu", "v"],
             epsilon={"f": 0.001}, is_training={"b": False}),
        node("pk", "Pack", ["bn", "bn"], axis={"i": "1"}),
        node("un", "Unpack", ["pk"], num={"i": "2"}, axis={"i": "1"}),
        node("fd", "FloorDiv", ["un:1", "s"]),
        node("fm", "FloorMod", ["un", "s"])],
        [weight("k", [4, 3]), weight("bias", [3]), weight("k2", [4, 3]),
         weight("s", [3]), weight("o", [3]), weight("mu", [3]),
         weight("v", [3])]),
    "hard-swish-pad": model([
        placeholder("x", [1, 4, 4, 2]), const("pads", [4, 2], "DT_INT32"),
        const("w", [3, 3, 2, 2]), const("sixth", []), const("three", []),
        node("p", "Pad", ["x", "pads"]),
        node("c", "Conv2D", ["p", "w"], **conv_attrs("VALID", 1)),
        node("m", "Mul", ["sixth", "c"]), node("a", "AddV2", ["c", "three"]),
        node("r", "Relu6", ["a"]), node("hs", "Mul", ["m", "r"])],
        [spatial_pads("pads"), weight("w", [3, 3, 2, 2]),
         weight("sixth", []), weight("three", [])]),
    "bad-shard-size": {"modelTopology": {"node": [
        placeholder("x", [1]), const("w", [100]),
        node("a", "Add", ["x", "w"])]},
        "weightsManifest": [{"paths": ["a.bin"],
                             "weights": [weight("w", [100])]}]},
    "unknown-op": model([placeholder("x", [1, 3]),
                         node("y", "Frobnicate", ["x"])], []),
}

os.makedirs(OUT, exist_ok=True)
for name, m in SEEDS.items():
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
with open(os.path.join(OUT, "not-json.json"), "w") as f:
    f.write('{"modelTopology": {"node": [\n')
