/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The tools refuse bad input with a message naming it and a non-zero
 * exit: simnpu-run-module's --input files and values and numeric options,
 * simnpu-compile's numeric options. Tool paths come as arguments:
 * compile, run-module, annotate, host model. */

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

/* a tool that reads a device without end is stopped, and fails */
#define TOOL_TIMEOUT "20"
#define USAGE_STATUS 2
/* the host model's input, f32 [1, 2, 2, 3] */
#define HOST_INPUT_BYTES 48

static const char *compile_tool, *run_tool, *annotate_tool, *host_model;
static gchar *tmp, *small_model;

typedef struct
{
  gchar *out, *err;
  int status;                   /* the exit status, or -1 if signalled */
} result;

static void
result_clear (result * r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs a tool under timeout(1) with the environment variable @env
 * ("NAME=VALUE") if not NULL. */
static result
run_env (const char *env, const char *const *argv)
{
  GPtrArray *a = g_ptr_array_new ();
  gchar **envp = g_get_environ ();
  GError *error = NULL;
  result r = { 0 };
  gint wait = 0;

  g_ptr_array_add (a, (gpointer) "timeout");
  g_ptr_array_add (a, (gpointer) TOOL_TIMEOUT);
  for (; *argv; argv++)
    g_ptr_array_add (a, (gpointer) * argv);
  g_ptr_array_add (a, NULL);
  if (env) {
    gchar **kv = g_strsplit (env, "=", 2);
    envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    g_strfreev (kv);
  }
  if (!g_spawn_sync (NULL, (gchar **) a->pdata, envp, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &r.out, &r.err, &wait, &error))
    g_error ("cannot run %s: %s", (const char *) a->pdata[2], error->message);
  r.status = WIFEXITED (wait) ? WEXITSTATUS (wait) : -1;
  g_ptr_array_unref (a);
  g_strfreev (envp);
  return r;
}

static result
run (const char *const *argv)
{
  return run_env (NULL, argv);
}

/* The run failed with @status (0: any non-zero) and @needle on stderr. */
static void
expect_failure (const result * r, int status, const char *needle)
{
  if (r->status == 0 || (status != 0 && r->status != status)
      || strstr (r->err, needle) == NULL)
    g_error ("expected exit %d with '%s'; got %d:\n%s%s", status, needle,
        r->status, r->out, r->err);
}

static void
expect_success (const result * r)
{
  if (r->status != 0)
    g_error ("expected success; got %d:\n%s%s", r->status, r->out, r->err);
}

static gchar *
tmp_path (const char *name)
{
  return g_build_filename (tmp, name, NULL);
}

/* ------------------------------------------------------------------ */
/* simnpu-run-module                                                    */

static void
run_module_input (const char *input, result * r)
{
  gchar *module = g_strdup_printf ("--module=%s", host_model);
  gchar *in = g_strdup_printf ("--input=1x2x2x3xf32=%s", input);
  const char *argv[] = { run_tool, module, in, "--time-scale", "0", NULL };

  *r = run (argv);
  g_free (module);
  g_free (in);
}

/* --input=...=@FILE reads exactly the tensor's bytes from a regular file:
 * a device (it never ended, growing memory), a FIFO, a short or long file
 * are refused. */
static void
test_run_module_input_file (void)
{
  gchar *exact = tmp_path ("exact.bin"), *shorter = tmp_path ("short.bin");
  gchar *longer = tmp_path ("long.bin"), *fifo = tmp_path ("fifo");
  gchar *arg;
  float v[HOST_INPUT_BYTES / sizeof (float) + 1];
  unsigned i;
  result r;

  for (i = 0; i < G_N_ELEMENTS (v); i++)
    v[i] = 1.5f;
  g_assert_true (g_file_set_contents (exact, (gchar *) v, HOST_INPUT_BYTES,
          NULL));
  g_assert_true (g_file_set_contents (shorter, (gchar *) v,
          HOST_INPUT_BYTES - 1, NULL));
  g_assert_true (g_file_set_contents (longer, (gchar *) v,
          HOST_INPUT_BYTES + 1, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  run_module_input ("@/dev/zero", &r);
  expect_failure (&r, USAGE_STATUS, "'/dev/zero' is not a regular file; "
      "expected 48 bytes");
  result_clear (&r);

  arg = g_strdup_printf ("@%s", fifo);
  run_module_input (arg, &r);
  expect_failure (&r, USAGE_STATUS, "is not a regular file");
  result_clear (&r);
  g_free (arg);

  arg = g_strdup_printf ("@%s", shorter);
  run_module_input (arg, &r);
  expect_failure (&r, USAGE_STATUS, "has 47 bytes; expected exactly 48");
  result_clear (&r);
  g_free (arg);

  arg = g_strdup_printf ("@%s", longer);
  run_module_input (arg, &r);
  expect_failure (&r, USAGE_STATUS, "has 49 bytes; expected exactly 48");
  result_clear (&r);
  g_free (arg);

  run_module_input ("@/nonexistent/x.bin", &r);
  expect_failure (&r, USAGE_STATUS, "cannot open '/nonexistent/x.bin'");
  result_clear (&r);

  /* the exact size runs, as the same constant does */
  arg = g_strdup_printf ("@%s", exact);
  run_module_input (arg, &r);
  expect_success (&r);
  g_assert_nonnull (strstr (r.out, "min 0.982014 max 0.982014"));
  result_clear (&r);
  g_free (arg);

  g_unlink (fifo);
  g_free (exact);
  g_free (shorter);
  g_free (longer);
  g_free (fifo);
}

/* Every numeric option is parsed whole and range-checked, and the message
 * names the option and its range (--time-scale nan failed with
 * "(success)"). */
static void
test_run_module_numeric_options (void)
{
  static const struct
  {
    const char *option, *value, *needle;
  } cases[] = {
    {"--time-scale", "nan", "--time-scale: 'nan' is not a number in "
          "[0, 1000]"},
    {"--time-scale", "inf", "--time-scale: 'inf' is not a number"},
    {"--time-scale", "1e300", "--time-scale: '1e300' is not a number"},
    {"--time-scale", "-1", "--time-scale: '-1' is not a number"},
    {"--time-scale", "0.5x", "--time-scale: '0.5x' is not a number"},
    {"--iterations", "0", "--iterations: '0' is not an integer in "
          "[1, 10000000]"},
    {"--iterations", "99999999999999999999", "--iterations: "
          "'99999999999999999999' is not an integer"},
    {"--iterations", "3.5", "--iterations: '3.5' is not an integer"},
    {"--in-flight", "65", "--in-flight: '65' is not an integer in [1, 64]"},
    {"--in-flight", "", "--in-flight: '' is not an integer"},
  };
  gchar *module = g_strdup_printf ("--module=%s", host_model);
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *opt = g_strdup_printf ("%s=%s", cases[i].option, cases[i].value);
    const char *argv[] = { run_tool, module, "--input=1x2x2x3xf32=1", opt,
      NULL
    };
    result r = run (argv);
    expect_failure (&r, USAGE_STATUS, cases[i].needle);
    g_assert_null (strstr (r.err, "(success)"));
    result_clear (&r);
    g_free (opt);
  }
  g_free (module);
}

/* A constant --input the dtype cannot hold is refused, not clamped (nan
 * cast to an integer is undefined). */
static void
test_run_module_input_values (void)
{
  static const struct
  {
    const char *input, *needle;
  } bad[] = {
    {"--input=1x2x2x3xu8=300", "value '300' is not an integer in [0, 255] "
          "(u8)"},
    {"--input=1x2x2x3xu8=-1", "value '-1' is not an integer in [0, 255]"},
    {"--input=1x2x2x3xu8=nan", "value 'nan' is not an integer"},
    {"--input=1x2x2x3xu8=1.5", "value '1.5' is not an integer"},
    {"--input=99999999999999999999x2x2x3xu8=0", "shape does not match"},
  };
  gchar *module = g_strdup_printf ("--module=%s", small_model);
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    const char *argv[] = { run_tool, module, bad[i].input, "--time-scale",
      "0", NULL
    };
    result r = run (argv);
    expect_failure (&r, USAGE_STATUS, bad[i].needle);
    result_clear (&r);
  }
  {
    const char *argv[] = { run_tool, module, "--input=1x2x2x3xu8=255",
      "--time-scale", "0", NULL
    };
    result r = run (argv);
    expect_success (&r);
    result_clear (&r);
  }
  {
    gchar *host = g_strdup_printf ("--module=%s", host_model);
    const char *argv[] = { run_tool, host, "--input=1x2x2x3xf32=1e39",
      "--time-scale", "0", NULL
    };
    result r = run (argv);
    expect_failure (&r, USAGE_STATUS, "value '1e39' is not a number");
    result_clear (&r);
    g_free (host);
  }
  g_free (module);
}

/* ------------------------------------------------------------------ */
/* simnpu-compile                                                       */

static void
test_compile_numeric_options (void)
{
  static const struct
  {
    const char *option, *needle;
  } cases[] = {
    {"--fallback-share=nan", "--fallback-share: 'nan' is not a number in "
          "[0, 1]"},
    {"--fallback-share=-0.5", "--fallback-share: '-0.5' is not a number"},
    {"--fallback-share=2", "--fallback-share: '2' is not a number"},
    {"--max-frames=0", "--max-frames: '0' is not an integer in [1, 100000]"},
    {"--max-frames=4294967297", "--max-frames: '4294967297' is not an "
          "integer"},
    {"--frame-stride=x", "--frame-stride: 'x' is not an integer in "
          "[1, 100000]"},
  };
  gchar *src = tmp_path ("small.json"), *axm = tmp_path ("unused.axm");
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const char *argv[] = { compile_tool, src, "-o", axm, cases[i].option,
      NULL
    };
    result r = run (argv);
    expect_failure (&r, USAGE_STATUS, cases[i].needle);
    result_clear (&r);
    g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
  }
  g_free (src);
  g_free (axm);
}

/* ------------------------------------------------------------------ */

#define SMALL_JSON \
  "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": \"small\", " \
  "\"inputs\": [{\"name\": \"x\", \"shape\": [1, 2, 2, 3], \"dtype\": " \
  "\"u8\", \"scale\": 0.1, \"zero_point\": 128}], \"outputs\": " \
  "[{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.1}], \"ops\": " \
  "[{\"name\": \"r1\", \"type\": \"relu\", \"inputs\": [\"x\"], " \
  "\"outputs\": [\"y\"]}]}"

static void
setup (void)
{
  gchar *src = tmp_path ("small.json");
  const char *argv[4 + 2] = { compile_tool, src, "-o", NULL, "-q", NULL };
  result r;

  small_model = tmp_path ("small.axm");
  argv[3] = small_model;
  g_assert_true (g_file_set_contents (src, SMALL_JSON, -1, NULL));
  r = run (argv);
  expect_success (&r);
  result_clear (&r);
  g_free (src);
}

int
main (int argc, char **argv)
{
  int ret;
  gchar *cmd;

  g_test_init (&argc, &argv, NULL);
  if (argc != 5) {
    g_printerr ("usage: test-tools-input COMPILE RUN-MODULE ANNOTATE "
        "HOST_MODEL\n");
    return 1;
  }
  compile_tool = argv[1];
  run_tool = argv[2];
  annotate_tool = argv[3];
  host_model = argv[4];
  tmp = g_dir_make_tmp ("simnpu-tools-input-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  setup ();
  g_test_add_func ("/simnpu/tools-input/run-module-input-file",
      test_run_module_input_file);
  g_test_add_func ("/simnpu/tools-input/run-module-numeric-options",
      test_run_module_numeric_options);
  g_test_add_func ("/simnpu/tools-input/run-module-input-values",
      test_run_module_input_values);
  g_test_add_func ("/simnpu/tools-input/compile-numeric-options",
      test_compile_numeric_options);
  ret = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp);
  g_free (cmd);
  g_free (tmp);
  g_free (small_model);
  return ret;
}
