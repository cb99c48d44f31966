#!/usr/bin/env python3
# Runs the Python example (docs/examples/ax-profile.py) on videotestsrc's
# ball with the build's typelib and library, and checks what it prints:
# detections read through libgstax, the profiled section, its rows with
# positive counts, most expensive first, and the report of the tracer's
# axprof-report bus message.
#
#   check-ax-profile.py EXAMPLE TYPELIB_DIR
#
# Skips (77) only when PyGObject (python3-gi) is missing.

import os
import re
import subprocess
import sys

FRAMES = 40
WARMUP = 10  # the example's WARMUP_FRAMES

try:
    import gi  # noqa: F401
except ImportError:
    print("check-ax-profile: skipped: PyGObject is not installed "
          "(Debian python3-gi)")
    sys.exit(77)

example, typelib_dir = sys.argv[1], sys.argv[2]
env = dict(os.environ)
for var in ("GI_TYPELIB_PATH", "LD_LIBRARY_PATH"):
    env[var] = typelib_dir + (":" + env[var] if env.get(var) else "")

proc = subprocess.run([sys.executable, example, "--frames", str(FRAMES)],
                      env=env, capture_output=True, text=True, timeout=240)
sys.stdout.write(proc.stdout)
sys.stderr.write(proc.stderr)


def fail(why):
    print(f"check-ax-profile: {why}", file=sys.stderr)
    sys.exit(1)


if proc.returncode != 0:
    fail(f"ax-profile.py exited with status {proc.returncode}")
out = proc.stdout.splitlines()

det = [m for m in (re.fullmatch(
    r"detections: (\d+) in (\d+) frames \((\d+) frames with at least one\)",
    line) for line in out) if m]
if len(det) != 1:
    fail("no detections summary line")
n_det, n_frames, n_with = (int(g) for g in det[0].groups())
if n_frames != FRAMES:
    fail(f"the probe saw {n_frames} frames, expected {FRAMES}")
if n_det == 0 or n_with == 0:
    fail("no detections read on the ball")
if not any(re.fullmatch(r"frame \d+: ball [01]\.\d\d at \d+,\d+ \d+x\d+ px",
                        line) for line in out):
    fail("no detection printed with its label, score and box")

sec = [m for m in (re.fullmatch(
    r"section: (\S+), (\d+) frames in \d+\.\d\d s \(\d+\.\d fps\)", line)
    for line in out) if m]
if len(sec) != 1:
    fail("no section line")
status, sec_frames = sec[0].group(1), int(sec[0].group(2))
if status != "section":
    fail(f"the report's status is {status}, expected section")
# the warm-up frames are outside the section; the example holds the
# source at its start, so no frame crosses it
if sec_frames != FRAMES - WARMUP:
    fail(f"the section counted {sec_frames} frames, expected "
         f"{FRAMES - WARMUP} of {FRAMES} after {WARMUP} warm-up frames")

row_re = re.compile(r"(.+?) +(\d+\.\d\d) ms +(\d+\.\d\d) ms +(\d+\.\d) +"
                    r"(\d+) +(\d+\.\d\d) ms")
rows = [m for m in (row_re.fullmatch(line) for line in out) if m]
if len(rows) < 4:
    fail(f"{len(rows)} report rows printed, expected the pipeline's "
         "elements and the model's stages")
names = [m.group(1) for m in rows]
for m in rows:
    if int(m.group(5)) <= 0:
        fail(f"row {m.group(1)} has count {m.group(5)}")
totals = [float(m.group(6)) for m in rows]
if totals != sorted(totals, reverse=True):
    fail(f"rows not sorted most expensive first: {totals}")
for want in ("inference", "nms", "letterbox"):
    if not any(n == want or n.endswith("/" + want) for n in names):
        fail(f"no row for the element {want}: {names}")
if not any(n.startswith("ball-detector/") for n in names):
    fail(f"no row keyed by the model ball-detector: {names}")
if not any(re.fullmatch(r"the constraint is .+", line) for line in out):
    fail("no verdict")

# the axprof-report bus message's report, kept past its message: it covers
# the run from the section's start to EOS
eos = [m for m in (re.fullmatch(
    r"report at EOS: (\S+), (\d+) frames, (\d+) rows, verdict: (\S+)", line)
    for line in out) if m]
if len(eos) != 1:
    fail("no line for the report at EOS")
if eos[0].group(1) != "eos":
    fail(f"the bus message's report has status {eos[0].group(1)}, "
         "expected eos")
if int(eos[0].group(2)) != sec_frames:
    fail(f"the report at EOS counted {eos[0].group(2)} frames, expected "
         f"the section's {sec_frames}")
if int(eos[0].group(3)) < 4:
    fail(f"the report at EOS has {eos[0].group(3)} rows")
sys.exit(0)
