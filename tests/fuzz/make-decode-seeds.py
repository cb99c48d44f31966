#!/usr/bin/env python3
# Writes the seed corpus of fuzz-decode (tests/fuzz/corpus/decode): small
# YOLO, CenterNet, SSD and classifier tensors in the layout fuzz-decode.c
# reads. Run from the source tree: python3 tests/fuzz/make-decode-seeds.py
import os
import random
import struct

OUT = os.path.join(os.path.dirname(__file__), 'corpus', 'decode')
F32, U8, I8 = 2, 0, 1
rng = random.Random(16)


def tensor(dtype, dims, scale=1.0, zp=0):
    return (bytes([dtype, len(dims) - 1]) +
            b''.join(struct.pack('<h', d) for d in dims) +
            struct.pack('<fi', scale, zp))


def values(dtype, n, hot=0.1):
    if dtype == F32:
        return b''.join(struct.pack('<f', rng.random() if rng.random() < hot
                                    else rng.random() * 0.01)
                        for _ in range(n))
    return bytes(rng.randrange(256) for _ in range(n))


def nms(name, json, kind, tensors, data, thr=64, iou=115, maxdet=100,
        flags=0, w=64, h=64):
    head = (b'\x00' + json.encode() + b'\x00' +
            bytes([kind, thr, iou, maxdet, flags]) + struct.pack('<HH', w, h) +
            bytes([len(tensors) - 1]))
    write(name, head + b''.join(tensors) + data)


def classify(name, top_k, activation, t, data):
    write(name, b'\x01' + struct.pack('<H', top_k - 1) + bytes([activation])
          + t + data)


def write(name, data):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)


os.makedirs(OUT, exist_ok=True)
nms('yolov8-f32', '', 0, [tensor(F32, [1, 6, 16])], values(F32, 96))
nms('yolov8-u8', '', 0, [tensor(U8, [1, 5, 32], 0.01, 0)], values(U8, 160))
nms('yolov5-i8', '{"type": "yolov5"}', 1, [tensor(I8, [1, 16, 7], 0.02, -10)],
    values(I8, 112), flags=1)
nms('centernet', '{"type": "centernet", "stride": 4, "top_k": 20}', 2,
    [tensor(U8, [1, 8, 8, 3], 1 / 255.0, 0), tensor(F32, [1, 8, 8, 4])],
    values(U8, 192) + values(F32, 256, 1.0))
nms('ssd', '{"type": "ssd", "strides": [8, 16], "anchors_per_cell": [2, 6],'
    ' "keypoints": 2, "input_size": [32, 32]}', 3,
    [tensor(F32, [1, 32, 1]), tensor(F32, [1, 24, 1]),
     tensor(F32, [1, 32, 8]), tensor(F32, [1, 24, 8])],
    values(F32, 56, 0.5) + values(F32, 448, 1.0), flags=2)
nms('bad-json', '{"type": ', 0, [tensor(F32, [1, 6, 4])], values(F32, 24))
nms('zero-dims', '', 0, [tensor(F32, [1, 0, 16])], b'')
nms('negative-dims', '', 1, [tensor(U8, [1, -5, 7], 0.1, 0)], b'\x80')
nms('nan-scale', '', 0, [tensor(U8, [1, 5, 8], float('nan'), 0)],
    values(U8, 40))
nms('inf-scores', '', 0, [tensor(F32, [1, 5, 4])],
    struct.pack('<20f', *([float('inf'), float('nan'), -float('inf'), 1,
                           0.5] * 4)))
nms('all-hot', '', 0, [tensor(U8, [1, 84, 200], 1 / 255.0, 0)],
    b'\xff' * 100, thr=1)
classify('classify-f32', 3, 2, tensor(F32, [1, 10]), values(F32, 10, 1.0))
classify('classify-i8', 5, 0, tensor(I8, [1, 1000], 0.1, 3), values(I8, 1000))
classify('classify-sigmoid', 1, 3, tensor(U8, [1, 1, 1, 4], 0.5, 128),
         b'\x00\x80\xff\x10')
classify('classify-empty', 2, 1, tensor(F32, [1, 0]), b'')
classify('classify-top-k-large', 1000, 2, tensor(F32, [1, 2000]),
         values(F32, 64, 1.0))
# regressions: ABS (G_MININT32) and (q - zero point) overflowed
nms('zero-point-min', '', 0, [tensor(U8, [1, 5, 8], 0.5, -2**31)],
    values(U8, 40))
classify('classify-zero-point-min', 2, 1, tensor(I8, [1, 8], 0.5, -2**31),
         values(I8, 8))
