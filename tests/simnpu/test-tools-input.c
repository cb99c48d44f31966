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
 * simnpu-compile's numeric options, simnpu-annotate's debug info and
 * runtime CSV (another model's, truncated, garbage, inconsistent), and
 * its .xlsx going on to further sheets past a sheet's row limit. Tool
 * paths come as arguments: compile, run-module, annotate, host model. */

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* a tool that reads a device without end is stopped, and fails */
#define TOOL_TIMEOUT "20"
#define USAGE_STATUS 2
/* the host model's input, f32 [1, 2, 2, 3] */
#define HOST_INPUT_BYTES 48

#include "tool-run.h"

static const char *compile_tool, *run_tool, *annotate_tool, *host_model;
static gchar *tmp, *small_model;

/* The run failed with @status (0: any non-zero) and @needle on stderr. */
static void
expect_failure (const result * r, int status, const char *needle)
{
  if (r->status == 0 || (status != 0 && r->status != status)
      || strstr (r->err, needle) == NULL)
    g_error ("expected exit %d with '%s'; got %d:\n%s%s", status, needle,
        r->status, r->out, r->err);
}

/* Whether @needle occurs in @len bytes (NULs included, unlike
 * g_strstr_len). */
static gboolean
has_bytes (const char *data, gsize len, const char *needle)
{
  gsize n = strlen (needle), i;

  for (i = 0; i + n <= len; i++)
    if (memcmp (data + i, needle, n) == 0)
      return TRUE;
  return FALSE;
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

/* A --decoder with an integer json-glib would wrap is refused before
 * the model is compiled (its loader would refuse the model). */
static void
test_compile_decoder_integer_range (void)
{
  gchar *onnx = g_build_filename (ONNX_NODE_TESTS,
      "test_conv_with_strides_padding", "model.onnx", NULL);
  gchar *decoder = tmp_path ("decoder.json"), *axm = tmp_path ("dec.axm");
  gchar *arg = g_strdup_printf ("--decoder=%s", decoder);
  const char *argv[] = { compile_tool, onnx, "-o", axm, arg, NULL };
  result r;

  if (!g_file_test (onnx, G_FILE_TEST_EXISTS)) {
    g_test_skip ("libonnx-testdata is not installed");
    goto out;
  }
  g_assert_true (g_file_set_contents (decoder, "{\"type\": \"yolo\", "
          "\"classes\": 100000000000000000000}", -1, NULL));
  r = run (argv);
  expect_failure (&r, 0, "decoder.json: $.classes: 100000000000000000000 is "
      "out of range");
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
  result_clear (&r);
out:
  g_free (onnx);
  g_free (decoder);
  g_free (axm);
  g_free (arg);
}

/* A model, labels or decoder that is a FIFO or resolves to a device is
 * refused by name, without waiting for a writer or reading without end
 * (a FIFO hung the tool, /dev/zero filled memory), and no model is
 * written. */
static void
test_compile_not_regular (void)
{
  gchar *zero_json = tmp_path ("zero.json"), *zero_onnx = tmp_path
      ("zero.onnx"), *fifo = tmp_path ("model-fifo.json");
  gchar *axm = tmp_path ("not-regular.axm");
  gchar *onnx = g_build_filename (ONNX_NODE_TESTS,
      "test_conv_with_strides_padding", "model.onnx", NULL);
  gchar *labels = g_strdup_printf ("--labels=%s", zero_json);
  gchar *decoder = g_strdup_printf ("--decoder=%s", fifo);
  const char *argv[] = { compile_tool, zero_json, "-o", axm, NULL, NULL };
  result r;

  g_assert_cmpint (symlink ("/dev/zero", zero_json), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero_onnx), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  r = run (argv);
  expect_failure (&r, 0, "zero.json' is a character device; expected a "
      "regular file");
  result_clear (&r);
  argv[1] = zero_onnx;
  r = run (argv);
  expect_failure (&r, 0, "zero.onnx' is a character device; expected a "
      "regular file");
  result_clear (&r);
  argv[1] = fifo;
  r = run (argv);
  expect_failure (&r, 0, "model-fifo.json' is a FIFO (named pipe); expected "
      "a regular file");
  result_clear (&r);
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));

  if (!g_file_test (onnx, G_FILE_TEST_EXISTS)) {
    g_test_skip ("libonnx-testdata is not installed");
    goto out;
  }
  argv[1] = onnx;
  argv[4] = labels;
  r = run (argv);
  expect_failure (&r, 0, "--labels: labels file '");
  expect_failure (&r, 0, "zero.json' is a character device");
  result_clear (&r);
  argv[4] = decoder;
  r = run (argv);
  expect_failure (&r, 0, "--decoder: decoder '");
  expect_failure (&r, 0, "model-fifo.json' is a FIFO");
  result_clear (&r);
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
out:
  g_unlink (zero_json);
  g_unlink (zero_onnx);
  g_unlink (fifo);
  g_free (zero_json);
  g_free (zero_onnx);
  g_free (fifo);
  g_free (axm);
  g_free (onnx);
  g_free (labels);
  g_free (decoder);
}

/* A graph whose weights_file lies outside its folder is refused, and
 * none of that file's bytes reach a compiled model (the graph's 4 weight
 * bytes came from ../secret.bin). */
static void
test_compile_weights_outside (void)
{
  gchar *dir = tmp_path ("hostile"), *secret = tmp_path ("secret.bin");
  gchar *src = g_build_filename (dir, "graph.json", NULL);
  gchar *axm = tmp_path ("hostile.axm");
  const char *argv[] = { compile_tool, src, "-o", axm, NULL };
  result r;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (secret, "SeKr", 4, NULL));
  g_assert_true (g_file_set_contents (src, "{\"format\": \"simnpu-graph\", "
          "\"version\": 1, \"name\": \"hostile\", \"weights_file\": "
          "\"../secret.bin\", \"inputs\": [{\"name\": \"x\", \"shape\": "
          "[1, 2, 2, 2], \"dtype\": \"i8\", \"scale\": 0.1}], \"outputs\": "
          "[{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.1}], \"ops\": "
          "[{\"type\": \"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], "
          "\"attrs\": {\"kernel\": [1, 1], \"out_channels\": 2}, "
          "\"weights\": {\"scale\": 0.01, \"data\": {\"offset\": 0, "
          "\"size\": 4}}}]}", -1, NULL));
  r = run (argv);
  expect_failure (&r, 0, "weights_file '../secret.bin' resolves to");
  expect_failure (&r, 0, "it must lie inside the model's folder");
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
  result_clear (&r);
  g_free (dir);
  g_free (secret);
  g_free (src);
  g_free (axm);
}

/* --module a FIFO or a link to /dev/zero: refused by name. */
static void
test_run_module_not_regular (void)
{
  gchar *zero = tmp_path ("zero.axm"), *fifo = tmp_path ("fifo.axm");
  gchar *module = g_strdup_printf ("--module=%s", zero);
  const char *argv[] = { run_tool, module, "--device=metis", "--time-scale",
    "0", NULL
  };
  result r;

  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  r = run (argv);
  expect_failure (&r, 0, "model '");
  expect_failure (&r, 0, "zero.axm' is a character device; expected a "
      "regular file");
  result_clear (&r);
  /* without --device the module is read for its device first */
  argv[2] = "--time-scale";
  argv[3] = "0";
  argv[4] = NULL;
  r = run (argv);
  expect_failure (&r, 0, "zero.axm' is a character device");
  result_clear (&r);
  g_free (module);
  module = g_strdup_printf ("--module=%s", fifo);
  argv[1] = module;
  r = run (argv);
  expect_failure (&r, 0, "fifo.axm' is a FIFO (named pipe); expected a "
      "regular file");
  result_clear (&r);
  g_unlink (zero);
  g_unlink (fifo);
  g_free (zero);
  g_free (fifo);
  g_free (module);
}

/* ------------------------------------------------------------------ */
/* simnpu-annotate                                                      */

/* A debug dir of model "m1": three actions (DMA in, compute on the job's
 * core, DMA out) on a device of core0, dma_in, dma_out. */
#define DEBUG_ACTIONS \
  "action_id,id,kind,resource,op_index,op_name,op_type,location,bytes," \
  "cycles,est_start_cycles,est_end_cycles\n" \
  "0,DI0,DMA_IN,dma_in,-1,\"\",DMA_IN,\"m1.json:$.inputs\",12,10,0,10\n" \
  "1,S0,COMPUTE,core,0,\"r1\",relu,\"m1.json:$.ops[0] (r1)\",0,20,10,30\n" \
  "2,DO0,DMA_OUT,dma_out,-1,\"\",DMA_OUT,\"m1.json:$.outputs\",12,10,30," \
  "40\n"
#define DEBUG_DEVICE \
  "model=m1\nsource=m1.json\nspec=test\nclock_mhz=800\nresource=core0\n" \
  "resource=dma_in\nresource=dma_out\n"
#define RUNTIME_HEADER \
  "dispatch_name,invocation_id,action_id,timestamp_us,event\n"

static gchar *debug_dir;

/* The rows of one job of @model starting at @t0 us. */
static void
append_job (GString * s, const char *model, unsigned job, double t0)
{
  unsigned a;

  g_string_append_printf (s, "host_copy,%u,0,%.3f,start\n", job, t0);
  g_string_append_printf (s, "host_copy,%u,0,%.3f,end\n", job, t0 + 1);
  for (a = 0; a < 3; a++) {
    g_string_append_printf (s, "%s,%u,%u,%.3f,start\n", model, job, a,
        t0 + 2 + 10 * a);
    g_string_append_printf (s, "%s,%u,%u,%.3f,end\n", model, job, a,
        t0 + 11 + 10 * a);
  }
  g_string_append_printf (s, "job_core,%u,0,%.3f,core\n", job, t0 + 2);
}

static result
annotate_text (const char *env, const char *csv_text, const char *out_name)
{
  gchar *csv = tmp_path ("runtime.csv"), *out = tmp_path (out_name);
  const char *argv[] = { annotate_tool, debug_dir, csv, out, NULL };
  result r;

  g_assert_true (g_file_set_contents (csv, csv_text, -1, NULL));
  r = run_env (env, argv);
  g_free (csv);
  g_free (out);
  return r;
}

static gchar *
good_csv (unsigned n_jobs)
{
  GString *s = g_string_new (RUNTIME_HEADER);
  unsigned j;

  for (j = 0; j < n_jobs; j++)
    append_job (s, "m1", j + 1, 100.0 * j);
  return g_string_free (s, FALSE);
}

static void
test_annotate_good (void)
{
  gchar *csv = good_csv (2), *out = tmp_path ("good.csv"), *contents = NULL;
  result r = annotate_text (NULL, csv, "good.csv");

  expect_success (&r);
  g_assert_nonnull (strstr (r.out, "annotated 8 events into"));
  g_assert_nonnull (strstr (r.out, "Model: m1"));
  g_assert_true (g_file_get_contents (out, &contents, NULL, NULL));
  /* the compute ran on the job's core, core0 */
  g_assert_nonnull (strstr (contents, ",relu,core0,r1,"));
  g_free (contents);
  result_clear (&r);
  g_free (out);
  g_free (csv);
}

/* A runtime CSV of another model is refused, naming its first row. */
static void
test_annotate_other_model (void)
{
  GString *s = g_string_new (RUNTIME_HEADER);
  result r;

  append_job (s, "m2", 1, 0);
  r = annotate_text (NULL, s->str, "other.csv");
  expect_failure (&r, 0, "runtime.csv line 4: dispatch_name 'm2', but the "
      "debug info is of 'm1'");
  g_assert_nonnull (strstr (r.err, "different models"));
  result_clear (&r);

  /* on a shared device another model's rows are left out, and said so */
  g_string_truncate (s, strlen (RUNTIME_HEADER));
  append_job (s, "m1", 1, 0);
  append_job (s, "m2", 2, 50);
  r = annotate_text (NULL, s->str, "shared.csv");
  expect_success (&r);
  g_assert_nonnull (strstr (r.out, "annotated 4 events"));
  g_assert_nonnull (strstr (r.out, "6 rows of other models"));
  result_clear (&r);
  g_string_free (s, TRUE);
}

/* The same model name from another compile: action ids beyond the debug
 * info, or a job with fewer actions, are refused with the row. */
static void
test_annotate_other_compile (void)
{
  GString *s = g_string_new (RUNTIME_HEADER);
  result r;

  append_job (s, "m1", 1, 0);
  g_string_append (s, "m1,1,3,50.000,start\nm1,1,3,51.000,end\n");
  r = annotate_text (NULL, s->str, "ids.csv");
  expect_failure (&r, 0, "line 11: action_id 3, but the debug info of 'm1' "
      "has 3 actions (0 to 2)");
  result_clear (&r);

  g_string_assign (s, RUNTIME_HEADER);
  g_string_append (s, "m1,1,0,2.000,start\nm1,1,0,11.000,end\n"
      "m1,1,1,12.000,start\nm1,1,1,21.000,end\n");
  append_job (s, "m1", 2, 100);
  r = annotate_text (NULL, s->str, "count.csv");
  expect_failure (&r, 0, "line 2: job 1 has 2 actions; the debug info of "
      "'m1' has 3");
  result_clear (&r);
  g_string_free (s, TRUE);
}

/* Truncated or garbage input exits non-zero (it printed an error and
 * exited 0 with a partial report). */
static void
test_annotate_truncated_garbage (void)
{
  gchar *csv = good_csv (2);
  gchar *cut = g_strndup (csv, strlen (csv) - 9);
  result r;

  r = annotate_text (NULL, cut, "cut.csv");
  expect_failure (&r, 0, "line 19: no end of line");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "this is not,a runtime row\n",
      "garbage.csv");
  expect_failure (&r, 0, "line 2: 2 fields; expected 5");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,abc,start\n", "ts.csv");
  expect_failure (&r, 0, "line 2: timestamp_us 'abc'");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,1.0,begin\n", "ev.csv");
  expect_failure (&r, 0, "line 2: event 'begin'; expected start or end");
  result_clear (&r);

  r = annotate_text (NULL, "not a header\n", "head.csv");
  expect_failure (&r, 0, "expected the header");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER, "empty.csv");
  expect_failure (&r, 0, "no events of 'm1'");
  result_clear (&r);

  /* a start never ended */
  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,1.0,start\n", "open.csv");
  expect_failure (&r, 0, "line 2: 'start' without its 'end'");
  result_clear (&r);
  g_free (cut);
  g_free (csv);
}

/* An end before its start, and a negative action id, are refused (they
 * gave negative times and wrapped ids). */
static void
test_annotate_inconsistent_events (void)
{
  result r;

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,20.0,start\n"
      "m1,1,0,10.0,end\n", "backwards.csv");
  expect_failure (&r, 0, "line 3: m1 job 1 action 0 ends at 10.000 us, "
      "before its start at 20.000 us (line 2)");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,-1,1.0,start\n"
      "m1,1,-1,2.0,end\n", "negative.csv");
  expect_failure (&r, 0, "line 2: action_id '-1'; expected an unsigned "
      "integer");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,-3,0,1.0,start\n", "negjob.csv");
  expect_failure (&r, 0, "line 2: invocation_id '-3'");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,-5.0,start\n", "negts.csv");
  expect_failure (&r, 0, "line 2: timestamp_us '-5.0'");
  result_clear (&r);

  r = annotate_text (NULL, RUNTIME_HEADER "m1,1,0,1.0,end\n", "noend.csv");
  expect_failure (&r, 0, "line 2: 'end' of m1 job 1 action 0 without its "
      "'start'");
  result_clear (&r);
}

/* A runtime CSV that is a FIFO (it blocked the tool) or a device (read
 * without end), and a debug file that is a FIFO: refused by name. */
static void
test_annotate_not_regular (void)
{
  gchar *fifo = tmp_path ("runtime-fifo.csv"), *out = tmp_path ("nr.csv");
  gchar *dir = tmp_path ("fifo-debug"), *actions, *device;
  const char *argv[] = { annotate_tool, debug_dir, fifo, out, NULL };
  result r;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  r = run (argv);
  expect_failure (&r, 0, "runtime CSV '");
  expect_failure (&r, 0, "runtime-fifo.csv' is a FIFO (named pipe); "
      "expected a regular file");
  result_clear (&r);
  argv[2] = "/dev/zero";
  r = run (argv);
  expect_failure (&r, 0, "'/dev/zero' is a character device; expected a "
      "regular file");
  result_clear (&r);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  actions = g_build_filename (dir, "actions.csv", NULL);
  device = g_build_filename (dir, "device.txt", NULL);
  g_assert_cmpint (mkfifo (actions, 0600), ==, 0);
  g_assert_true (g_file_set_contents (device, DEBUG_DEVICE, -1, NULL));
  argv[1] = dir;
  argv[2] = fifo;
  r = run (argv);
  expect_failure (&r, 0, "actions.csv' is a FIFO (named pipe)");
  result_clear (&r);
  g_unlink (actions);
  g_unlink (device);
  g_unlink (fifo);
  g_free (actions);
  g_free (device);
  g_free (dir);
  g_free (fifo);
  g_free (out);
}

/* A debug dir that is not one: wrong ids, fields, no model. */
static void
test_annotate_bad_debug_dir (void)
{
  gchar *dir = tmp_path ("bad-debug"), *actions, *device;
  gchar *csv = tmp_path ("runtime.csv"), *out = tmp_path ("x.csv");
  gchar *good = good_csv (1);
  const char *argv[] = { annotate_tool, dir, csv, out, NULL };
  result r;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  actions = g_build_filename (dir, "actions.csv", NULL);
  device = g_build_filename (dir, "device.txt", NULL);
  g_assert_true (g_file_set_contents (csv, good, -1, NULL));

  g_assert_true (g_file_set_contents (device, DEBUG_DEVICE, -1, NULL));
  g_assert_true (g_file_set_contents (actions, "action_id,id,kind,resource,"
          "op_index,op_name,op_type,location,bytes,cycles,est_start_cycles,"
          "est_end_cycles\n-1,DI0,DMA_IN,dma_in,-1,,DMA_IN,x,1,1,0,1\n", -1,
          NULL));
  r = run (argv);
  expect_failure (&r, 0, "actions.csv line 2: action_id '-1'; expected 0");
  result_clear (&r);

  g_assert_true (g_file_set_contents (actions, DEBUG_ACTIONS, -1, NULL));
  g_assert_true (g_file_set_contents (device, "resource=core0\n", -1, NULL));
  r = run (argv);
  expect_failure (&r, 0, "device.txt: no model= line");
  result_clear (&r);

  g_free (good);
  g_free (actions);
  g_free (device);
  g_free (dir);
  g_free (csv);
  g_free (out);
}

/* Past a sheet's row limit the .xlsx goes on to further sheets, and says
 * so (it stopped at Excel's limit while reporting every event). The
 * limit is lowered to 4 rows, the header's included: 8 events take 3
 * sheets. */
static void
test_annotate_xlsx_sheets (void)
{
  gchar *csv = good_csv (2), *out = tmp_path ("sheets.xlsx");
  gchar *contents = NULL;
  gsize len = 0;
  result r = annotate_text ("SIMNPU_ANNOTATE_XLSX_MAX_ROWS=4", csv,
      "sheets.xlsx");

  if (r.status != 0 && strstr (r.err, "without libxlsxwriter")) {
    g_test_skip ("built without libxlsxwriter");
    goto out;
  }
  expect_success (&r);
  g_assert_nonnull (strstr (r.out, "annotated 8 events"));
  g_assert_nonnull (strstr (r.out, "the events go on 3 sheets, 'annotated' "
          "to 'annotated 3'"));
  /* a zip's member names are stored as they are */
  g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
  g_assert_true (has_bytes (contents, len, "xl/worksheets/sheet3.xml"));
  g_assert_false (has_bytes (contents, len, "xl/worksheets/sheet4.xml"));
  g_free (contents);
  result_clear (&r);

  /* under the limit: one sheet, no note */
  r = annotate_text (NULL, csv, "sheets.xlsx");
  expect_success (&r);
  g_assert_null (strstr (r.out, "go on"));
  g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
  g_assert_true (has_bytes (contents, len, "xl/worksheets/sheet1.xml"));
  g_assert_false (has_bytes (contents, len, "xl/worksheets/sheet2.xml"));
  g_free (contents);
out:
  result_clear (&r);
  g_free (csv);
  g_free (out);
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
  gchar *src = tmp_path ("small.json"), *actions, *device;
  const char *argv[4 + 2] = { compile_tool, src, "-o", NULL, "-q", NULL };
  result r;

  small_model = tmp_path ("small.axm");
  argv[3] = small_model;
  g_assert_true (g_file_set_contents (src, SMALL_JSON, -1, NULL));
  r = run (argv);
  expect_success (&r);
  result_clear (&r);
  g_free (src);

  debug_dir = tmp_path ("debug");
  g_assert_cmpint (g_mkdir_with_parents (debug_dir, 0755), ==, 0);
  actions = g_build_filename (debug_dir, "actions.csv", NULL);
  device = g_build_filename (debug_dir, "device.txt", NULL);
  g_assert_true (g_file_set_contents (actions, DEBUG_ACTIONS, -1, NULL));
  g_assert_true (g_file_set_contents (device, DEBUG_DEVICE, -1, NULL));
  g_free (actions);
  g_free (device);
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
  g_test_add_func ("/simnpu/tools-input/compile-decoder-integer-range",
      test_compile_decoder_integer_range);
  g_test_add_func ("/simnpu/tools-input/compile-not-regular",
      test_compile_not_regular);
  g_test_add_func ("/simnpu/tools-input/compile-weights-outside",
      test_compile_weights_outside);
  g_test_add_func ("/simnpu/tools-input/run-module-not-regular",
      test_run_module_not_regular);
  g_test_add_func ("/simnpu/tools-input/annotate-not-regular",
      test_annotate_not_regular);
  g_test_add_func ("/simnpu/tools-input/annotate-good", test_annotate_good);
  g_test_add_func ("/simnpu/tools-input/annotate-other-model",
      test_annotate_other_model);
  g_test_add_func ("/simnpu/tools-input/annotate-other-compile",
      test_annotate_other_compile);
  g_test_add_func ("/simnpu/tools-input/annotate-truncated-garbage",
      test_annotate_truncated_garbage);
  g_test_add_func ("/simnpu/tools-input/annotate-inconsistent-events",
      test_annotate_inconsistent_events);
  g_test_add_func ("/simnpu/tools-input/annotate-bad-debug-dir",
      test_annotate_bad_debug_dir);
  g_test_add_func ("/simnpu/tools-input/annotate-xlsx-sheets",
      test_annotate_xlsx_sheets);
  ret = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp);
  g_free (cmd);
  g_free (tmp);
  g_free (small_model);
  g_free (debug_dir);
  return ret;
}
