/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Bad input gives an error code and a message naming the field and what
 * was expected: malformed .axm containers, malformed JSON graphs, unknown
 * ops, shape mismatches, wrong buffers at submit. */

#include "simnpu-test-util.h"

#include <sys/stat.h>
#include <sys/types.h>

#define SEED 3
/* .axm layout (see sim-npu/format/axm.c) */
#define AXM_VERSION_OFFSET 8
#define AXM_FILE_BYTES_OFFSET 16
#define AXM_N_SECTIONS_OFFSET 24
#define AXM_SECTION_TABLE 64
#define AXM_SECTION_BYTES 24
#define SEC_TENSORS_INDEX 1
#define SEC_OPS_INDEX 2

static simnpu_device *dev;
static guint8 *good;
static gsize good_len;

static void
expect_load_error (const guint8 * data, size_t len, int code,
    const char *needle)
{
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;
  int ret = simnpu_model_load_from_memory (dev, data, len, &model, &error);

  if (ret != code || strstr (error.message, needle) == NULL)
    g_error ("expected %s with '%s', got %d: %s", simnpu_strerror (code),
        needle, ret, error.message);
  g_assert_null (model);
  g_assert_cmpint (error.code, ==, code);
}

static guint8 *
copy_good (void)
{
  return g_memdup2 (good, good_len);
}

static void
put_u32 (guint8 * p, uint32_t v)
{
  memcpy (p, &v, 4);
}

static void
put_u64 (guint8 * p, uint64_t v)
{
  memcpy (p, &v, 8);
}

static uint64_t
get_u64 (const guint8 * p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

static void
test_axm_malformed (void)
{
  guint8 *d;
  gsize n;
  guint8 *sec_tensors = NULL;

  /* the good container loads */
  {
    simnpu_model *model;
    simnpu_error error = { 0 };
    g_assert_cmpint (simnpu_model_load_from_memory (dev, good, good_len,
            &model, &error), ==, 0);
    simnpu_model_unload (model);
  }

  /* truncated: at every length below the full one */
  for (n = 0; n < good_len; n += (n < 128 ? 1 : 61)) {
    simnpu_error error = { 0 };
    simnpu_model *model = NULL;
    g_assert_cmpint (simnpu_model_load_from_memory (dev, good, n, &model,
            &error), <, 0);
    g_assert_null (model);
    g_assert_cmpuint (strlen (error.message), >, 0);
  }
  expect_load_error (good, 10, SIMNPU_EFORMAT, "header");
  expect_load_error (good, good_len - 1, SIMNPU_EFORMAT, "file_bytes");

  d = copy_good ();
  memcpy (d, "NOTAMODL", 8);
  expect_load_error (d, good_len, SIMNPU_EFORMAT, "magic");
  g_free (d);

  d = copy_good ();
  d[AXM_VERSION_OFFSET] = 9;
  expect_load_error (d, good_len, SIMNPU_EVERSION, "version");
  g_free (d);

  d = copy_good ();
  put_u32 (d + AXM_N_SECTIONS_OFFSET, 1000000);
  expect_load_error (d, good_len, SIMNPU_EFORMAT, "n_sections");
  g_free (d);

  /* absurd record count in the tensors section */
  d = copy_good ();
  sec_tensors = d + AXM_SECTION_TABLE + SEC_TENSORS_INDEX * AXM_SECTION_BYTES;
  put_u32 (sec_tensors + 4, 0xfffffff0u);
  expect_load_error (d, good_len, SIMNPU_ENOMEM, "tensors");
  g_free (d);

  /* section offset out of range */
  d = copy_good ();
  sec_tensors = d + AXM_SECTION_TABLE + SEC_TENSORS_INDEX * AXM_SECTION_BYTES;
  put_u64 (sec_tensors + 8, G_GUINT64_CONSTANT (1) << 40);
  expect_load_error (d, good_len, SIMNPU_EFORMAT, "out of range");
  g_free (d);

  /* absurd section size */
  d = copy_good ();
  sec_tensors = d + AXM_SECTION_TABLE + SEC_TENSORS_INDEX * AXM_SECTION_BYTES;
  put_u64 (sec_tensors + 16, G_MAXUINT64 - 4);
  expect_load_error (d, good_len, SIMNPU_EFORMAT, "out of range");
  g_free (d);

  /* overlapping sections: ops placed on top of tensors */
  d = copy_good ();
  {
    guint8 *sec_ops = d + AXM_SECTION_TABLE + SEC_OPS_INDEX * AXM_SECTION_BYTES;
    sec_tensors = d + AXM_SECTION_TABLE + SEC_TENSORS_INDEX * AXM_SECTION_BYTES;
    put_u64 (sec_ops + 8, get_u64 (sec_tensors + 8));
  }
  expect_load_error (d, good_len, SIMNPU_EFORMAT, "overlaps");
  g_free (d);

  /* a tensor dimension made absurd: first tensor record, dims[0] */
  d = copy_good ();
  sec_tensors = d + AXM_SECTION_TABLE + SEC_TENSORS_INDEX * AXM_SECTION_BYTES;
  put_u64 (d + get_u64 (sec_tensors + 8) + 16, G_GUINT64_CONSTANT (1) << 40);
  expect_load_error (d, good_len, SIMNPU_ESHAPE, "dimensions");
  g_free (d);

  /* an op type that does not exist: first op record */
  d = copy_good ();
  {
    guint8 *sec_ops = d + AXM_SECTION_TABLE + SEC_OPS_INDEX * AXM_SECTION_BYTES;
    put_u32 (d + get_u64 (sec_ops + 8), 77);
  }
  expect_load_error (d, good_len, SIMNPU_EUNSUPPORTED, "ops[0]");
  g_free (d);

  /* not a file at all */
  {
    simnpu_error error = { 0 };
    simnpu_model *model = NULL;
    g_assert_cmpint (simnpu_model_load (dev, "/nonexistent/x.axm", &model,
            &error), ==, SIMNPU_ENOENT);
    g_assert_nonnull (strstr (error.message, "/nonexistent/x.axm"));
  }
}

static void
expect_json_error (const char *json, int code, const char *needle)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  int ret = simnpu__graph_load_json_data (json, strlen (json), ".", false,
      &g, &error);

  if (ret != code || strstr (error.message, needle) == NULL)
    g_error ("expected %s with '%s', got %d: %s", simnpu_strerror (code),
        needle, ret, error.message);
  g_assert_null (g);
}

#define HEAD "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": \"t\", " \
  "\"inputs\": [{\"name\": \"x\", \"shape\": [1, 4, 4, 2], \"dtype\": " \
  "\"i8\", \"scale\": 0.1}], \"outputs\": [{\"name\": \"y\", \"dtype\": " \
  "\"i8\", \"scale\": 0.1%s}], "

static void
test_json_malformed (void)
{
  gchar *j;

  expect_json_error ("{\"format\": ", SIMNPU_EFORMAT, "graph JSON");
  expect_json_error ("[1, 2]", SIMNPU_EFORMAT, "expected a JSON object");
  {
    /* nesting deep enough to exhaust a recursive parser's stack */
    gchar *deep = g_strnfill (200000, '[');
    expect_json_error (deep, SIMNPU_EFORMAT, "nested deeper than 64");
    g_free (deep);
  }
  {
    /* the limit itself: 64 levels pass the depth check, 65 do not */
    gchar *open = g_strnfill (64, '['), *close = g_strnfill (64, ']');
    gchar *at_limit = g_strconcat (open, close, NULL);
    gchar *over = g_strconcat ("[", open, close, "]", NULL);

    expect_json_error (at_limit, SIMNPU_EFORMAT, "expected a JSON object");
    expect_json_error (over, SIMNPU_EFORMAT, "nested deeper than 64");
    g_free (open);
    g_free (close);
    g_free (at_limit);
    g_free (over);
  }
  expect_json_error ("{\"format\": \"onnx\"}", SIMNPU_EFORMAT, "$.format");
  expect_json_error ("{\"format\": \"simnpu-graph\", \"version\": 2}",
      SIMNPU_EVERSION, "$.version");

  /* unknown op */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"fft\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"]}]}", "");
  expect_json_error (j, SIMNPU_EUNSUPPORTED, "$.ops[0].type: unknown op 'fft'");
  g_free (j);

  /* unknown tensor */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"relu\", \"inputs\": "
      "[\"q\"], \"outputs\": [\"y\"]}]}", "");
  expect_json_error (j, SIMNPU_ESHAPE, "unknown tensor 'q'");
  g_free (j);

  /* declared output shape disagrees with the op */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"relu\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"]}]}", ", \"shape\": [1, 4, 4, 3]");
  expect_json_error (j, SIMNPU_ESHAPE, "declared [1,4,4,3] but the op "
      "produces [1,4,4,2]");
  g_free (j);

  /* add of shapes that do not broadcast */
  j = g_strdup_printf (HEAD "\"constants\": [{\"name\": \"c\", \"shape\": "
      "[1, 3], \"dtype\": \"i8\", \"data\": {\"base64\": \"AAAA\"}}], "
      "\"ops\": [{\"type\": \"add\", \"inputs\": [\"x\", \"c\"], "
      "\"outputs\": [\"y\"]}]}", "");
  expect_json_error (j, SIMNPU_ESHAPE, "not broadcastable");
  g_free (j);

  /* conv weights of the wrong size */
  j = g_strdup_printf (HEAD "\"ops\": [{\"name\": \"cv\", \"type\": "
      "\"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
      "{\"kernel\": [3, 3], \"out_channels\": 2, \"pad\": [1, 1, 1, 1]}, "
      "\"weights\": {\"data\": {\"base64\": \"AAAA\"}}}]}", "");
  expect_json_error (j, SIMNPU_ESIZE, "'cv.weights': 3 bytes of data; "
      "expected 36");
  g_free (j);

  /* conv without out_channels */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"conv2d\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"], \"attrs\": {\"kernel\": [3, 3]}}]}", "");
  expect_json_error (j, SIMNPU_EFORMAT, "$.ops[0].attrs.out_channels: missing");
  g_free (j);

  /* shape-only conv without --estimate-only */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"conv2d\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"], \"attrs\": {\"kernel\": [1, 1], "
      "\"out_channels\": 2}}]}", "");
  expect_json_error (j, SIMNPU_ENOWEIGHTS, "--estimate-only");
  g_free (j);

  /* a bad attribute value */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"maxpool\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"], \"attrs\": {\"kernel\": [0, 2]}}]}", "");
  expect_json_error (j, SIMNPU_EFORMAT, "$.ops[0].attrs.kernel");
  g_free (j);

  /* input with a negative dimension */
  expect_json_error ("{\"format\": \"simnpu-graph\", \"version\": 1, "
      "\"name\": \"t\", \"inputs\": [{\"name\": \"x\", \"shape\": [1, -4], "
      "\"dtype\": \"i8\"}]}", SIMNPU_EFORMAT, "$.inputs[0].shape");

  /* missing weights file */
  j = g_strdup_printf (HEAD "\"weights_file\": \"missing.bin\", \"ops\": "
      "[{\"type\": \"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], "
      "\"attrs\": {\"kernel\": [1, 1], \"out_channels\": 2}, \"weights\": "
      "{\"data\": {\"offset\": 0, \"size\": 4}}}]}", "");
  expect_json_error (j, SIMNPU_EIO, "missing.bin");
  g_free (j);
}

/* A graph whose one conv reads its 4 weight bytes from @weights_file. */
static gchar *
graph_with_weights_file (const char *weights_file)
{
  return g_strdup_printf (HEAD "\"weights_file\": \"%s\", \"ops\": "
      "[{\"type\": \"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], "
      "\"attrs\": {\"kernel\": [1, 1], \"out_channels\": 2}, \"weights\": "
      "{\"scale\": 0.01, \"data\": {\"offset\": 0, \"size\": 4}}}]}", "",
      weights_file);
}

/* Loads the graph dir/graph.json naming @weights_file: it must fail with
 * @code and both needles in the message, and give no graph. */
static void
expect_weights_file_error (const char *dir, const char *weights_file,
    int code, const char *needle, const char *needle2)
{
  gchar *json = graph_with_weights_file (weights_file);
  gchar *path = g_build_filename (dir, "graph.json", NULL);
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  int ret;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  ret = simnpu__graph_load_json_file (path, false, &g, &error);
  if (ret != code || strstr (error.message, needle) == NULL
      || strstr (error.message, needle2) == NULL)
    g_error ("weights_file '%s': expected %s with '%s' and '%s', got %d: %s",
        weights_file, simnpu_strerror (code), needle, needle2, ret,
        error.message);
  g_assert_null (g);
  g_unlink (path);
  g_free (path);
  g_free (json);
}

#define SECRET_BYTES "SeKr"
#define GOOD_BYTES "\x01\x02\x03\x04"
#define INSIDE "must lie inside the model's folder"

/* A graph's weights_file is read from the graph's own folder only, once
 * symlinks are resolved: a hostile graph naming ../x, /abs/x or a link
 * out of its folder would otherwise carry any file of the user's into
 * the compiled model. A file in a subfolder is fine; a FIFO or a device
 * is refused without reading it. */
static void
test_json_weights_file_inside (void)
{
  gchar *tmp = g_dir_make_tmp ("simnpu-weights-XXXXXX", NULL);
  gchar *model = g_build_filename (tmp, "model", NULL);
  gchar *sub = g_build_filename (model, "sub", NULL);
  gchar *secret = g_build_filename (tmp, "secret.bin", NULL);
  gchar *good = g_build_filename (sub, "w.bin", NULL);
  gchar *link = g_build_filename (model, "link.bin", NULL);
  gchar *zero = g_build_filename (model, "zero.bin", NULL);
  gchar *fifo = g_build_filename (model, "fifo.bin", NULL);
  gchar *json, *path;
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  gboolean found = FALSE;
  unsigned i;

  g_assert_nonnull (tmp);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_assert_true (g_file_set_contents (secret, SECRET_BYTES, 4, NULL));
  g_assert_true (g_file_set_contents (good, GOOD_BYTES, 4, NULL));
  g_assert_cmpint (symlink ("../secret.bin", link), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  expect_weights_file_error (model, "../secret.bin", SIMNPU_EFORMAT,
      "weights_file '../secret.bin' resolves to", INSIDE);
  expect_weights_file_error (model, "sub/../../secret.bin", SIMNPU_EFORMAT,
      "sub/../../secret.bin", INSIDE);
  expect_weights_file_error (model, secret, SIMNPU_EFORMAT, secret,
      "is an absolute path");
  expect_weights_file_error (model, "link.bin", SIMNPU_EFORMAT, "link.bin",
      INSIDE);
  expect_weights_file_error (model, "zero.bin", SIMNPU_EFORMAT,
      "resolves to '/dev/zero'", INSIDE);
  expect_weights_file_error (model, "fifo.bin", SIMNPU_EIO, "fifo.bin",
      "is a FIFO (named pipe); expected a regular file");
  expect_weights_file_error (model, "sub", SIMNPU_EIO, "sub",
      "is a directory; expected a regular file");

  /* inside, in a subfolder: read */
  json = graph_with_weights_file ("sub/w.bin");
  path = g_build_filename (model, "graph.json", NULL);
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  if (simnpu__graph_load_json_file (path, false, &g, &error) < 0)
    g_error ("%s", error.message);
  for (i = 0; i < g->n_tensors; i++)
    found |= g->tensors[i].data_bytes == 4
        && memcmp (g->tensors[i].data, GOOD_BYTES, 4) == 0;
  g_assert_true (found);
  simnpu__graph_free (g);
  g_unlink (path);

  g_unlink (fifo);
  g_unlink (zero);
  g_unlink (link);
  g_unlink (good);
  g_unlink (secret);
  g_rmdir (sub);
  g_rmdir (model);
  g_rmdir (tmp);
  g_free (path);
  g_free (json);
  g_free (fifo);
  g_free (zero);
  g_free (link);
  g_free (good);
  g_free (secret);
  g_free (sub);
  g_free (model);
  g_free (tmp);
}

static bool
find_bad_int (const char *json, char *msg)
{
  return simnpu__json_find_bad_int (json, strlen (json), msg,
      SIMNPU_ERROR_MESSAGE_SIZE);
}

/* Integers outside int64 are refused with their path: json-glib would
 * read 10^30 as -1, a valid zero point. */
static void
test_json_integer_range (void)
{
  char msg[SIMNPU_ERROR_MESSAGE_SIZE];
  gchar *j;

  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"relu\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"]}]}",
      ", \"zero_point\": 1000000000000000000000000000000");
  expect_json_error (j, SIMNPU_EFORMAT, "$.outputs[0].zero_point: "
      "1000000000000000000000000000000 is out of range");
  g_free (j);
  /* within int64 but not an i8 zero point: the field's own range */
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"relu\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"]}]}", ", \"zero_point\": 128");
  expect_json_error (j, SIMNPU_EFORMAT, "$.outputs[0].zero_point: expected "
      "an integer in [-128, 127]");
  g_free (j);
  j = g_strdup_printf (HEAD "\"ops\": [{\"type\": \"relu\", \"inputs\": "
      "[\"x\"], \"outputs\": [\"y\"]}]}",
      ", \"zero_point\": -18446744073709551617");
  expect_json_error (j, SIMNPU_EFORMAT, "$.outputs[0].zero_point");
  g_free (j);

  /* the bounds themselves, and what is not an integer literal */
  g_assert_false (find_bad_int ("[9223372036854775807, "
          "-9223372036854775808, 1e30, 0.5, 00012, -0]", msg));
  g_assert_false (find_bad_int ("{\"a\": \"99999999999999999999\"}", msg));
  g_assert_true (find_bad_int ("{\"a\": [1, 2, 9223372036854775808]}", msg));
  g_assert_cmpstr (msg, ==, "$.a[2]: 9223372036854775808 is out of range; "
      "expected an integer in [-9223372036854775808, 9223372036854775807]");
  g_assert_true (find_bad_int ("{\"a\": {\"b\": 1, \"c\": [[0], "
          "-9223372036854775809]}}", msg));
  g_assert_true (g_str_has_prefix (msg, "$.a.c[1]: -9223372036854775809 "));
}

/* A model whose decoder JSON holds an integer json-glib would wrap does
 * not load (the elements read their parameters from it). */
static void
test_axm_decoder_integer_range (void)
{
  simnpu_error error = { 0 };
  gchar *json = test_conv_graph_json ("conv", 8, 3, 4, 3, SEED);
  simnpu__graph *g = NULL;
  simnpu__profile p;
  simnpu__schedule sch = { 0 };
  gchar *path = NULL, *contents = NULL;
  gsize len = 0;
  int fd;

  g_assert_cmpint (simnpu__profile_parse ("metis", &p, &error), ==, 0);
  g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
          false, &g, &error), ==, 0);
  g_assert_cmpint (simnpu__graph_prepare (g, &error), ==, 0);
  g_assert_cmpint (simnpu__schedule_build (g, &p, &sch, &error), ==, 0);
  g->decoder = g_strdup ("{\"type\": \"yolo\", \"top_k\": "
      "[1, 100000000000000000000]}");
  fd = g_file_open_tmp ("simnpu-test-XXXXXX.axm", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_cmpint (simnpu__axm_write (g, &sch, path, &error), ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  expect_load_error ((const guint8 *) contents, len, SIMNPU_EFORMAT,
      "$.top_k[1]: 100000000000000000000 is out of range");
  g_unlink (path);
  g_free (path);
  g_free (contents);
  simnpu__schedule_clear (&sch);
  simnpu__graph_free (g);
  g_free (json);
}

static void
test_submit_wrong_buffers (void)
{
  simnpu_error error = { 0 };
  gchar *json = test_conv_graph_json ("conv", 8, 3, 4, 3, SEED);
  gchar *path = test_compile_json (json, "metis", false, &error);
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  simnpu_job *job = NULL;
  guint8 *buf = g_malloc0 (4096);

  g_assert_cmpint (simnpu_model_load (dev, path, &model, &error), ==, 0);
  simnpu_model_get_input (model, 0, &in_spec);
  simnpu_model_get_output (model, 0, &out_spec);
  g_assert_cmpuint (in_spec.size_bytes, ==, 8 * 8 * 3);

  in.data = buf;
  in.size_bytes = in_spec.size_bytes - 1;
  out.data = buf + 1024;
  out.size_bytes = out_spec.size_bytes;
  g_assert_cmpint (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
          &job, &error), ==, SIMNPU_ESIZE);
  g_assert_nonnull (strstr (error.message, "input 0 ('x') has 191 bytes; "
          "expected 192 (i8 1x8x8x3)"));
  g_assert_null (job);

  in.size_bytes = in_spec.size_bytes;
  out.size_bytes = 7;
  g_assert_cmpint (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
          &job, &error), ==, SIMNPU_ESIZE);
  g_assert_nonnull (strstr (error.message, "output 0 ('y')"));

  g_assert_cmpint (simnpu_job_submit (model, &in, 2, &out, 1, NULL, NULL,
          &job, &error), ==, SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "2 input buffers"));

  in.data = NULL;
  g_assert_cmpint (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
          &job, &error), ==, SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "NULL"));

  g_assert_cmpint (simnpu_model_get_input (model, 5, &in_spec), ==,
      SIMNPU_ENOENT);
  g_assert_cmpint (simnpu_device_set_time_scale (dev, -1.0), ==, SIMNPU_EINVAL);
  simnpu_model_unload (model);
  g_unlink (path);
  g_free (path);
  g_free (json);
  g_free (buf);
}

static void
test_shape_only_model (void)
{
  simnpu_error error = { 0 };
  gchar *json = test_conv_graph_json ("conv", 8, 3, 4, 3, SEED);
  gchar *path = test_compile_json (json, "metis", true, &error);
  simnpu_model *model;
  simnpu_model_info info;
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  simnpu_job *job = NULL;
  simnpu_job_result r;
  guint8 buf[256];

  g_assert_nonnull (path);
  g_assert_cmpint (simnpu_model_load (dev, path, &model, &error), ==, 0);
  simnpu_model_get_info (model, &info);
  g_assert_true (info.estimate_only);
  in.data = buf;
  in.size_bytes = 192;
  out.data = buf;
  out.size_bytes = 256;
  g_assert_cmpint (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
          &job, &error), ==, SIMNPU_ENOWEIGHTS);
  g_assert_nonnull (strstr (error.message, "shape-only"));
  /* timing-only jobs run */
  g_assert_cmpint (simnpu_job_submit (model, NULL, 0, NULL, 0, NULL, NULL,
          &job, &error), ==, 0);
  g_assert_cmpint (simnpu_job_wait (job, -1, &r), ==, 0);
  g_assert_cmpuint (r.device_ns, ==, info.device_ns);
  simnpu_job_free (job);
  simnpu_model_unload (model);
  g_unlink (path);
  g_free (path);
  g_free (json);
}

int
main (int argc, char **argv)
{
  simnpu_error error = { 0 };
  gchar *json, *path;
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (simnpu_device_open ("metis", &dev, &error), ==, 0);
  simnpu_device_set_time_scale (dev, 0.0);
  json = test_conv_graph_json ("conv", 8, 3, 4, 3, SEED);
  path = test_compile_json (json, "metis", false, &error);
  g_assert_nonnull (path);
  g_assert_true (g_file_get_contents (path, (gchar **) & good, &good_len,
          NULL));
  g_unlink (path);
  g_free (path);
  g_free (json);

  g_test_add_func ("/simnpu/bad-input/axm", test_axm_malformed);
  g_test_add_func ("/simnpu/bad-input/json", test_json_malformed);
  g_test_add_func ("/simnpu/bad-input/json-weights-file-inside",
      test_json_weights_file_inside);
  g_test_add_func ("/simnpu/bad-input/json-integer-range",
      test_json_integer_range);
  g_test_add_func ("/simnpu/bad-input/axm-decoder-integer-range",
      test_axm_decoder_integer_range);
  g_test_add_func ("/simnpu/bad-input/submit", test_submit_wrong_buffers);
  g_test_add_func ("/simnpu/bad-input/shape-only", test_shape_only_model);
  ret = g_test_run ();
  g_free (good);
  simnpu_device_close (dev);
  return ret;
}
