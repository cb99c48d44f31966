/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The command-line flow: simnpu-compile (trace and debug info),
 * simnpu-run-module (outputs, runtime CSV), simnpu-annotate (annotated CSV,
 * Perfetto trace, Host Profile Overview). Tool paths come as arguments:
 * compile, run-module, annotate, models source dir. */

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static const char *compile_tool, *run_tool, *annotate_tool, *models_dir;
static const char *host_model;
static gchar *tmp;

static gchar *
run (const char *const *argv, int expect_status)
{
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, &error));
  if (expect_status == 0 && !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed:\n%s%s", argv[0], out, err);
  if (expect_status != 0)
    g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_free (err);
  return out;
}

static unsigned
count_lines (const char *path)
{
  gchar *contents = NULL;
  unsigned n = 0;
  const char *p;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  for (p = contents; *p; p++)
    n += *p == '\n';
  g_free (contents);
  return n;
}

static void
test_torq_profiling_flow (void)
{
  gchar *json = g_build_filename (models_dir, "ball-detector.json", NULL);
  gchar *axm = g_build_filename (tmp, "ball.axm", NULL);
  gchar *trace = g_build_filename (tmp, "trace.csv", NULL);
  gchar *debug = g_build_filename (tmp, "debug", NULL);
  gchar *runtime = g_build_filename (tmp, "runtime.csv", NULL);
  gchar *annotated = g_build_filename (tmp, "annotated.csv", NULL);
  gchar *pb = g_build_filename (tmp, "annotated.pb", NULL);
  gchar *trace_arg = g_strdup_printf ("--dump-profiling=%s", trace);
  gchar *debug_arg = g_strdup_printf ("--debug-info=%s", debug);
  gchar *module_arg = g_strdup_printf ("--module=%s", axm);
  gchar *profile_arg = g_strdup_printf ("--profile-host=%s", runtime);
  gchar *contents = NULL, *out, **lines;
  const char *compile_argv[] = { compile_tool, json, "-o", axm, "--device",
    "torq", "--enable-profiling", trace_arg, debug_arg, NULL
  };
  const char *run_argv[] = { run_tool, module_arg,
    "--input=1x320x320x3xu8=0", "--iterations", "6", "--in-flight", "2",
    "--time-scale", "0", profile_arg, NULL
  };
  const char *annotate_csv_argv[] = { annotate_tool, debug, runtime,
    annotated, NULL
  };
  const char *annotate_pb_argv[] = { annotate_tool, debug, runtime, pb, NULL };
  unsigned n_actions;

  out = run (compile_argv, 0);
  g_assert_nonnull (strstr (out, "ball-detector"));
  g_free (out);
  g_assert_true (g_file_get_contents (trace, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "ID,Start,End,Location,Op Type");
  g_assert_true (g_str_has_prefix (lines[1], "CS0,0,"));
  g_assert_true (g_str_has_prefix (lines[2], "DI0,"));
  g_assert_nonnull (strstr (contents, "S0,"));
  g_assert_nonnull (strstr (contents, "DO0,"));
  g_assert_nonnull (strstr (contents, "$.ops[0] (mask)\",conv2d"));
  n_actions = g_strv_length (lines) - 2;
  g_strfreev (lines);
  g_free (contents);

  out = run (run_argv, 0);
  g_assert_nonnull (strstr (out, "output output0: f32 [1,5,25600]"));
  g_assert_nonnull (strstr (out, "throughput at in-flight 2"));
  g_free (out);
  /* header, per job: 2 rows per action, 2 host copy rows, 1 core row */
  g_assert_cmpuint (count_lines (runtime), ==, 1 + 6 * (2 * n_actions + 3));

  out = run (annotate_csv_argv, 0);
  g_assert_nonnull (strstr (out, "Host Profile Overview"));
  g_assert_nonnull (strstr (out, "Model: ball-detector"));
  g_assert_nonnull (strstr (out, "OVERALL"));
  g_assert_nonnull (strstr (out, "slice0"));
  g_assert_nonnull (strstr (out, "Host Copy"));
  /* no Metis resources in a Torq profile: rows come from the data */
  g_assert_null (strstr (out, "core0"));
  g_free (out);
  /* header and one row per action and host copy of each job */
  g_assert_cmpuint (count_lines (annotated), ==, 1 + 6 * (n_actions + 1));
  g_assert_true (g_file_get_contents (annotated, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "action_id,job_id,operation,"
          "invocation_names,original_operators,total_time,"
          "slice0_used_in_program,slice1_used_in_program,"
          "dma_in_used_in_program,dma_out_used_in_program,"
          "cdma_used_in_program,css_used_in_program,timestamp_start,"
          "timestamp_end,location\n"));
  g_free (contents);

  out = run (annotate_pb_argv, 0);
  g_free (out);
  g_assert_true (g_file_test (pb, G_FILE_TEST_EXISTS));

  /* a wrong input shape is refused with what was expected */
  {
    const char *bad_argv[] = { run_tool, module_arg,
      "--input=1x64x64x3xu8=0", NULL
    };
    gchar *o = NULL, *e = NULL;
    gint status;
    g_assert_true (g_spawn_sync (NULL, (gchar **) bad_argv, NULL, 0, NULL,
            NULL, &o, &e, &status, NULL));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (e, "expected 1x320x320x3xu8"));
    g_free (o);
    g_free (e);
  }

  g_free (json);
  g_free (axm);
  g_free (trace);
  g_free (debug);
  g_free (runtime);
  g_free (annotated);
  g_free (pb);
  g_free (trace_arg);
  g_free (debug_arg);
  g_free (module_arg);
  g_free (profile_arg);
}

/* The host-sections model (tests/simnpu/host-model.h): the public input is
 * the preamble's f32, the outputs printed are the public ones. An input
 * of 1.5 everywhere gives x = 4 on the device: prob = sigmoid (4), z = 4. */
static void
test_run_module_host_sections (void)
{
  gchar *module_arg = g_strdup_printf ("--module=%s", host_model);
  const char *run_argv[] = { run_tool, module_arg, "--input=1x2x2x3xf32=1.5",
    "--iterations", "3", "--in-flight", "2", "--time-scale", "0", NULL
  };
  const char *bad_argv[] = { run_tool, module_arg, "--input=1x2x2x3xi8=1",
    "--time-scale", "0", NULL
  };
  gchar *out = run (run_argv, 0);

  g_assert_nonnull (strstr (out, "output prob: f32 [1,2,2,3]"));
  g_assert_nonnull (strstr (out, "min 0.982014 max 0.982014"));
  g_assert_nonnull (strstr (out, "output z: u8 [1,2,2,3]"));
  g_assert_nonnull (strstr (out, "dequantised: min 4 max 4"));
  g_assert_nonnull (strstr (out, "host sections per job: preamble"));
  g_free (out);
  /* the device's i8 input is not the model's input */
  g_free (run (bad_argv, 1));
  g_free (module_arg);
}

/* A runtime profile that cannot be written fails the run with its path;
 * the device node stays one. */
static void
test_run_module_profile_write_error (void)
{
  gchar *module_arg = g_strdup_printf ("--module=%s", host_model);
  const char *argv[] = { run_tool, module_arg, "--input=1x2x2x3xf32=1.5",
    "--iterations", "2", "--time-scale", "0", "--profile-host=/dev/full",
    NULL
  };
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    g_test_skip ("no /dev/full here");
    g_free (module_arg);
    return;
  }
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, NULL));
  if (g_spawn_check_wait_status (status, NULL)
      || strstr (err, "could not write the runtime profile /dev/full") == NULL)
    g_error ("expected a failure naming /dev/full:\n%s%s", out, err);
  g_assert_null (strstr (out, "runtime profile: /dev/full"));
  g_assert_false (g_file_test ("/dev/full", G_FILE_TEST_IS_REGULAR));
  g_free (out);
  g_free (err);
  g_free (module_arg);
}

/* A calibration image that does not decode stops the compile with a
 * message naming the option, and writes no model. */
static void
test_compile_bad_calibration (void)
{
  gchar *onnx = g_build_filename (ONNX_NODE_TESTS,
      "test_conv_with_strides_padding", "model.onnx", NULL);
  gchar *png = g_build_filename (tmp, "not-an-image.png", NULL);
  gchar *calib = g_strdup_printf ("--calibration=%s", png);
  gchar *axm = g_build_filename (tmp, "bad-calibration.axm", NULL);
  const char *argv[] = { compile_tool, onnx, "-o", axm, calib, NULL };
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  if (!g_file_test (onnx, G_FILE_TEST_EXISTS)) {
    g_test_skip ("libonnx-testdata is not installed");
    goto out;
  }
  g_assert_true (g_file_set_contents (png, "this is text", -1, NULL));
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, NULL));
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "--calibration: "));
  g_assert_nonnull (strstr (err, "not-an-image.png"));
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
out:
  g_free (out);
  g_free (err);
  g_free (onnx);
  g_free (png);
  g_free (calib);
  g_free (axm);
}

int
main (int argc, char **argv)
{
  int ret;
  gchar *cmd;

  g_test_init (&argc, &argv, NULL);
  if (argc != 6) {
    g_printerr ("usage: test-tools COMPILE RUN-MODULE ANNOTATE MODELS_DIR "
        "HOST_MODEL\n");
    return 1;
  }
  compile_tool = argv[1];
  run_tool = argv[2];
  annotate_tool = argv[3];
  models_dir = argv[4];
  host_model = argv[5];
  tmp = g_dir_make_tmp ("simnpu-tools-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  g_test_add_func ("/simnpu/tools/profiling-flow", test_torq_profiling_flow);
  g_test_add_func ("/simnpu/tools/run-module-host-sections",
      test_run_module_host_sections);
  g_test_add_func ("/simnpu/tools/run-module-profile-write-error",
      test_run_module_profile_write_error);
  g_test_add_func ("/simnpu/tools/compile-bad-calibration",
      test_compile_bad_calibration);
  ret = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp);
  g_free (cmd);
  g_free (tmp);
  return ret;
}
