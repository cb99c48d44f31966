#!/usr/bin/env python3
# Installs the build with DESTDIR into a temporary folder and uses the
# installed copy as a user would (docs/install.md):
#  - the plugins land where the install rule puts them (for meson's
#    default prefix: gstreamer-1.0's pluginsdir, under DESTDIR);
#  - with only GST_PLUGIN_PATH naming the installed plugin dir (no
#    LD_LIBRARY_PATH, no GST_AX_MODEL_PATH) gst-inspect-1.0 finds them, they
#    load the installed libgstax-1.0 and libsimnpu through their rpath, and
#    a pipeline and the installed gst-ax-benchmark run an installed model
#    under the axprof tracer;
#  - the installed library finds the installed models, never the build
#    tree's;
#  - gstreamer-ax-1.0.pc carries pluginsdir and modelsdir, and an
#    application builds with nothing but its --cflags --libs;
#  - when the build made GstAx-1.0.typelib: Python (PyGObject) imports it
#    from the installed girepository-1.0 dir with GI_TYPELIB_PATH and
#    LD_LIBRARY_PATH naming the DESTDIR copies (a DESTDIR is not in the
#    loader's path), and reads an installed pipeline's report through it;
#  - a second build dir, configured (not built) with a custom prefix, puts
#    the plugins under that prefix and prints the GST_PLUGIN_PATH to set;
#    with GST_AX_INSTALL_TEST_FULL=1 it is also built, installed and
#    checked as above (minutes of compiling, so not by default).
#
# usage: test-install.py MESON SOURCE_ROOT BUILD_ROOT WORK_DIR CC...
import json
import os
import shutil
import subprocess
import sys

CUSTOM_PREFIX = "/opt/gst-ax-test"
# meson's default prefix: installs there go to GStreamer's pluginsdir
DEFAULT_PREFIX = "/usr/local"
MODEL = "ball-detector"
N_FRAMES = "3"
PLUGIN_FILES = ("libgstaxelements.so", "libgstaxtracers.so")
# =1: also build the custom-prefix dir and run every install check on it
FULL_ENV = "GST_AX_INSTALL_TEST_FULL"
TYPELIB = "GstAx-1.0.typelib"
# Pythons to import gi with: meson's own, then the system's (a pyenv or
# venv Python does not see Debian's python3-gi)
GI_PYTHONS = (sys.executable, "/usr/bin/python3")
# run by a Python with gi, argv[1] a pipeline: prints where the typelib
# and libgstax-1.0 came from and what the report of the run holds
GI_CHECK = """
import sys
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstAx", "1.0")
gi.require_version("GIRepository", "2.0")
from gi.repository import GIRepository, Gst, GstAx
Gst.init(None)
GstAx.profiler_enable("print=false")
pipeline = Gst.parse_launch(sys.argv[1])
pipeline.set_state(Gst.State.PLAYING)
report = None
while True:
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.ELEMENT | Gst.MessageType.EOS
        | Gst.MessageType.ERROR)
    if msg.type == Gst.MessageType.ERROR:
        sys.exit(msg.parse_error()[0].message)
    if msg.type == Gst.MessageType.EOS:
        break
    if msg.has_name("axprof-report"):
        report = msg.get_structure().get_value("report").ref()
pipeline.set_state(Gst.State.NULL)
print("typelib", GIRepository.Repository.get_default().get_typelib_path(
    "GstAx"))
with open("/proc/self/maps") as maps:
    for lib in sorted({line.split()[-1] for line in maps
                       if "libgstax-1.0.so" in line}):
        print("library", lib)
print("report", GstAx.report_status_to_string(report.status), report.frames,
      len(report.get_rows().unpack()))
"""

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def pkg_config_var(var, pkg, env=None):
    out = subprocess.check_output(["pkg-config", "--variable=" + var, pkg],
                                  env=env, text=True)
    return out.strip()


def options(build_dir):
    path = os.path.join(build_dir, "meson-info", "intro-buildoptions.json")
    with open(path) as f:
        return {o["name"]: o["value"] for o in json.load(f)}


def expected_plugins_dir(opts):
    """The install rule of meson.build, restated."""
    prefix = opts["prefix"]
    if opts["plugindir"]:
        return os.path.join(prefix, opts["plugindir"])
    if prefix in (pkg_config_var("prefix", "gstreamer-1.0"), DEFAULT_PREFIX):
        return pkg_config_var("pluginsdir", "gstreamer-1.0")
    return os.path.join(prefix, opts["libdir"], "gstreamer-1.0")


def under(destdir, path):
    return destdir + path if os.path.isabs(path) else os.path.join(destdir,
                                                                    path)


def user_env(destdir, plugins_dir):
    """A shell with GStreamer's own plugins and nothing of the build's."""
    env = dict(os.environ)
    for var in ("LD_LIBRARY_PATH", "GST_AX_MODEL_PATH", "GST_PLUGIN_PATH_1_0",
                "GST_PLUGIN_SYSTEM_PATH_1_0", "GST_PLUGIN_SYSTEM_PATH",
                "GST_REGISTRY_1_0", "GST_TRACERS"):
        env.pop(var, None)
    env["GST_PLUGIN_PATH"] = plugins_dir
    env["GST_REGISTRY"] = os.path.join(destdir, "registry.dat")
    return env


def check_installed(meson, build_dir, work, cc):
    destdir = os.path.join(work, "destdir")
    shutil.rmtree(destdir, ignore_errors=True)
    # meson install rewrites the log `ninja uninstall` reads: keep the one
    # of the user's real install
    install_log = os.path.join(build_dir, "meson-logs", "install-log.txt")
    saved_log = None
    if os.path.isfile(install_log):
        with open(install_log) as f:
            saved_log = f.read()
    rc, out = run([meson, "install", "-C", build_dir, "--no-rebuild",
                   "--destdir", destdir, "--quiet"])
    if saved_log is None:
        if os.path.isfile(install_log):
            os.unlink(install_log)
    else:
        with open(install_log, "w") as f:
            f.write(saved_log)
    if not check(rc == 0, "meson install --destdir"):
        print(out)
        return
    opts = options(build_dir)
    prefix = opts["prefix"]
    libdir = os.path.join(prefix, opts["libdir"])
    plugins = expected_plugins_dir(opts)
    if prefix == DEFAULT_PREFIX and not opts["plugindir"]:
        check(plugins == pkg_config_var("pluginsdir", "gstreamer-1.0"),
              "default prefix: plugins go to gstreamer-1.0's pluginsdir "
              + plugins)
    dest_plugins = under(destdir, plugins)
    for f in PLUGIN_FILES:
        check(os.path.isfile(os.path.join(dest_plugins, f)),
              "installed " + os.path.join(plugins, f))
    dest_models = under(destdir, os.path.join(prefix, opts["datadir"],
                                              "gst-ax", "models"))
    check(os.path.isfile(os.path.join(dest_models, MODEL + ".axm")),
          "installed model in " + dest_models)

    # the plugins' rpath reaches the DESTDIR copy of the libraries
    dest_libdir = under(destdir, libdir)
    rc, out = run(["ldd", os.path.join(dest_plugins, PLUGIN_FILES[0])],
                  env=user_env(destdir, dest_plugins))
    resolved = {}
    for line in out.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if arrow:
            resolved[name] = os.path.realpath(where.split(" (")[0])
    for lib in ("libgstax-1.0.so.0", "libsimnpu.so.0"):
        check(os.path.dirname(resolved.get(lib, "")) == dest_libdir,
              "the installed plugin loads the installed %s: %s"
              % (lib, resolved.get(lib)))
    check("not found" not in out, "the installed plugin's libraries resolve")

    env = user_env(destdir, dest_plugins)
    for feature, plugin in (("axinference", PLUGIN_FILES[0]),
                            ("axtracers", PLUGIN_FILES[1])):
        rc, out = run(["gst-inspect-1.0", feature], env=env)
        check(rc == 0 and os.path.join(dest_plugins, plugin) in out,
              "gst-inspect-1.0 %s with only GST_PLUGIN_PATH" % feature)
    report = os.path.join(destdir, "report.txt")
    env_run = dict(env, GST_TRACERS="axprof(file=%s)" % report)
    rc, out = run(["gst-launch-1.0", "-q", "videotestsrc", "pattern=ball",
                   "num-buffers=" + N_FRAMES, "!", "axletterbox", "!",
                   "axinference", "model=" + MODEL, "!", "axnms", "!",
                   "fakesink"], env=env_run)
    text = open(report).read() if os.path.isfile(report) else ""
    if not check(rc == 0 and (N_FRAMES + " frames in") in text
                 and MODEL in text,
                 "a pipeline runs the installed %s and axprof reports %s "
                 "frames" % (MODEL, N_FRAMES)):
        print(out)
    # the installed tool: its rpath, the installed plugins and model
    rc, out = run([under(destdir, os.path.join(prefix, opts["bindir"],
                                               "gst-ax-benchmark")),
                   MODEL, "--frames", N_FRAMES, "--serial-frames", "1",
                   "--quiet"], env=env)
    if not check(rc == 0 and (N_FRAMES + " frames in") in out,
                 "the installed gst-ax-benchmark runs the installed %s"
                 % MODEL):
        print(out)
    rc, out = run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1",
                   "!", "axletterbox", "!", "axinference",
                   "model=no-such-model", "!", "fakesink"], env=env)
    check(rc != 0 and dest_models in out
          and os.path.join(build_dir, "models") not in out,
          "a missing model is looked for in the installed models only")
    check_typelib(build_dir, destdir, libdir, dest_libdir, env)

    # an application built with only the installed .pc, moved to DESTDIR
    # as a packager's sysroot would (prefix= names the DESTDIR copy)
    pc_dir = os.path.join(work, "pkgconfig")
    os.makedirs(pc_dir, exist_ok=True)
    with open(os.path.join(dest_libdir, "pkgconfig",
                           "gstreamer-ax-1.0.pc")) as f:
        pc = f.read()
    check(pc.startswith("prefix=%s\n" % prefix), "gstreamer-ax-1.0.pc prefix")
    with open(os.path.join(pc_dir, "gstreamer-ax-1.0.pc"), "w") as f:
        f.write(pc.replace("prefix=%s\n" % prefix,
                           "prefix=%s\n" % under(destdir, prefix), 1))
    pc_env = dict(os.environ, PKG_CONFIG_PATH=pc_dir)
    check(pkg_config_var("pluginsdir", "gstreamer-ax-1.0", pc_env) == plugins,
          "gstreamer-ax-1.0.pc pluginsdir")
    check(pkg_config_var("modelsdir", "gstreamer-ax-1.0", pc_env)
          == dest_models, "gstreamer-ax-1.0.pc modelsdir")
    flags = subprocess.check_output(
        ["pkg-config", "--cflags", "--libs", "gstreamer-ax-1.0"],
        env=pc_env, text=True).split()
    app = os.path.join(work, "find-model")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "find-model.c")
    rc, out = run(cc + [src, "-o", app, *flags,
                        "-Wl,-rpath," + dest_libdir])
    if not check(rc == 0, "an application builds with only pkg-config "
                 "--cflags --libs gstreamer-ax-1.0"):
        print(out)
        return
    rc, out = run([app, MODEL], env=env)
    check(rc == 0 and out.strip() == os.path.join(dest_models, MODEL + ".axm"),
          "the installed libgstax-1.0 finds the installed model, without "
          "GST_AX_MODEL_PATH: " + out.strip())
    shutil.rmtree(destdir, ignore_errors=True)


def check_typelib(build_dir, destdir, libdir, dest_libdir, env):
    path = os.path.join(build_dir, "meson-info", "intro-installed.json")
    with open(path) as f:
        installed = list(json.load(f).values())
    typelib = os.path.join(libdir, "girepository-1.0", TYPELIB)
    if not any(p.endswith("/" + TYPELIB) for p in installed):
        print("skip: the build has no %s (-Dintrospection)" % TYPELIB)
        return
    if not check(typelib in installed, "the typelib installs to " + typelib):
        return
    python = next((py for py in GI_PYTHONS if py and os.access(py, os.X_OK)
                   and run([py, "-c", "import gi"])[0] == 0), None)
    if python is None:
        print("skip: no Python imports gi (python3-gi): %s"
              % ", ".join(GI_PYTHONS))
        return
    dest_typelib_dir = os.path.dirname(under(destdir, typelib))
    env = dict(env, GI_TYPELIB_PATH=dest_typelib_dir,
               LD_LIBRARY_PATH=dest_libdir)
    rc, out = run([python, "-c", GI_CHECK,
                   "videotestsrc pattern=ball num-buffers=" + N_FRAMES
                   + " ! axletterbox ! axinference model=" + MODEL
                   + " ! axnms ! fakesink"], env=env)
    lines = out.splitlines()
    libs = [os.path.realpath(line.split(" ", 1)[1]) for line in lines
            if line.startswith("library ")]
    reports = [line.split() for line in lines if line.startswith("report ")]
    if not check(rc == 0 and "typelib " + os.path.join(dest_typelib_dir,
                                                        TYPELIB) in lines
                 and libs and all(os.path.dirname(lib) == dest_libdir
                                  for lib in libs)
                 and len(reports) == 1 and reports[0][1:3] == ["eos",
                                                               N_FRAMES],
                 "Python imports the installed %s, which loads the installed "
                 "libgstax-1.0 and reads an installed pipeline's report"
                 % TYPELIB):
        print(out)


def configure_custom_prefix(meson, source_root, work):
    """Starts configuring (not building) a second build dir."""
    build = os.path.join(work, "custom-prefix")
    shutil.rmtree(build, ignore_errors=True)
    return build, subprocess.Popen(
        [meson, "setup", build, source_root, "--prefix=" + CUSTOM_PREFIX,
         "-Dtests=disabled", "-Dbenchmarks=disabled", "-Dfuzzing=disabled",
         "-Ddata_dir=" + os.path.join(work, "no-data")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def check_custom_prefix(meson, build, setup, cc):
    out = setup.communicate()[0]
    rc = setup.returncode
    if not check(rc == 0, "configure with --prefix=" + CUSTOM_PREFIX):
        print(out)
        return
    opts = options(build)
    plugins = os.path.join(CUSTOM_PREFIX, opts["libdir"], "gstreamer-1.0")
    check(expected_plugins_dir(opts) == plugins, "custom prefix rule")
    check("GST_PLUGIN_PATH=" + plugins in out,
          "configure prints the GST_PLUGIN_PATH to set")
    with open(os.path.join(build, "meson-info", "intro-installed.json")) as f:
        installed = json.load(f).values()
    for p in PLUGIN_FILES:
        check(os.path.join(plugins, p) in installed,
              "custom prefix: plugin installs to " + plugins)
    check(os.path.join(CUSTOM_PREFIX, opts["datadir"], "gst-ax", "models",
                       MODEL + ".axm") in installed,
          "custom prefix: models install under the prefix")
    pc = os.path.join(build, "meson-private", "gstreamer-ax-1.0.pc")
    check(pkg_config_var("pluginsdir", pc) == plugins,
          "custom prefix: gstreamer-ax-1.0.pc pluginsdir")
    if os.environ.get(FULL_ENV) == "1":
        # minutes of compiling: run by hand, not in the suite
        rc, out = run(["ninja", "-C", build])
        if check(rc == 0, "custom prefix: build"):
            check_installed(meson, build, os.path.join(build, "check"), cc)
        else:
            print(out)
    shutil.rmtree(build, ignore_errors=True)


def main():
    meson, source_root, build_root, work = sys.argv[1:5]
    cc = sys.argv[5:]
    os.makedirs(work, exist_ok=True)
    # configuring takes a few seconds: alongside the install checks
    custom = configure_custom_prefix(meson, source_root, work)
    check_installed(meson, build_root, work, cc)
    check_custom_prefix(meson, *custom, cc)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
