/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Class labels: from the JSON graph through the .axm container to the
 * model info, bad label data refused with the field named, and version
 * 1.0 containers (no labels section) still loading. */

#include "simnpu-test-util.h"

/* .axm layout (see sim-npu/format/axm.c) */
#define AXM_MINOR_OFFSET 10
#define AXM_N_SECTIONS_OFFSET 24
#define AXM_SECTION_TABLE 64
#define AXM_SECTION_BYTES 24
#define SEC_STRINGS_INDEX 0
#define SEC_LABELS_INDEX 6
#define N_SECTIONS_V1_0 6
#define LABEL_COUNT_LIMIT 4096

#define GRAPH(labels) "{\"format\": \"simnpu-graph\", \"version\": 1, " \
  "\"name\": \"labelled\"" labels ", \"inputs\": [{\"name\": \"x\", " \
  "\"shape\": [1, 2, 2, 1], \"dtype\": \"i8\", \"scale\": 0.1}], " \
  "\"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.1}], " \
  "\"ops\": [{\"name\": \"r\", \"type\": \"relu\", \"inputs\": [\"x\"], " \
  "\"outputs\": [\"y\"]}]}"

static simnpu_device *dev;

static guint8 *
compile (const char *json, gsize * len)
{
  simnpu_error error = { 0 };
  gchar *path = test_compile_json (json, "metis", false, &error), *data;

  g_assert_nonnull (path);
  g_assert_true (g_file_get_contents (path, &data, len, NULL));
  g_unlink (path);
  g_free (path);
  return (guint8 *) data;
}

static simnpu_model *
load (const guint8 * data, gsize len)
{
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;

  if (simnpu_model_load_from_memory (dev, data, len, &model, &error) < 0)
    g_error ("load: %s", error.message);
  return model;
}

static void
expect_load_error (const guint8 * data, gsize len, const char *needle)
{
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;
  int ret = simnpu_model_load_from_memory (dev, data, len, &model, &error);

  if (ret != SIMNPU_EFORMAT || strstr (error.message, needle) == NULL)
    g_error ("expected a format error with '%s', got %d: %s", needle, ret,
        error.message);
  g_assert_null (model);
}

static void
expect_json_error_code (const char *json, int code, const char *needle)
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

static void
expect_json_error (const char *json, const char *needle)
{
  expect_json_error_code (json, SIMNPU_EFORMAT, needle);
}

static guint8 *
section (guint8 * d, int index)
{
  return d + AXM_SECTION_TABLE + index * AXM_SECTION_BYTES;
}

static guint64
get_u64 (const guint8 * p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return v;
}

static void
put_u32 (guint8 * p, guint32 v)
{
  memcpy (p, &v, 4);
}

static void
test_round_trip (void)
{
  gsize len;
  guint8 *d = compile (GRAPH (", \"labels\": [\"ball\", \"grosse Kugel\", "
          "\"\\u00e9t\\u00e9\"]"), &len);
  simnpu_model *model = load (d, len);
  simnpu_model_info info;

  g_assert_cmpint (simnpu_model_get_info (model, &info), ==, 0);
  g_assert_cmpuint (info.n_labels, ==, 3);
  g_assert_cmpstr (info.labels[0], ==, "ball");
  g_assert_cmpstr (info.labels[1], ==, "grosse Kugel");
  g_assert_cmpstr (info.labels[2], ==, "\xc3\xa9t\xc3\xa9");
  g_assert_null (info.labels[3]);
  simnpu_model_unload (model);
  g_free (d);

  /* no labels: an empty, NULL-terminated list */
  d = compile (GRAPH (""), &len);
  model = load (d, len);
  g_assert_cmpint (simnpu_model_get_info (model, &info), ==, 0);
  g_assert_cmpuint (info.n_labels, ==, 0);
  g_assert_nonnull (info.labels);
  g_assert_null (info.labels[0]);
  simnpu_model_unload (model);
  g_free (d);
}

/* A 1.0 container has six sections and no labels; a 1.1 header must list
 * the labels section. */
static void
test_version_1_0 (void)
{
  gsize len;
  guint8 *d = compile (GRAPH (", \"labels\": [\"ball\"]"), &len);
  simnpu_model *model;
  simnpu_model_info info;

  put_u32 (d + AXM_N_SECTIONS_OFFSET, N_SECTIONS_V1_0);
  expect_load_error (d, len, "n_sections");
  d[AXM_MINOR_OFFSET] = 0;
  model = load (d, len);
  g_assert_cmpint (simnpu_model_get_info (model, &info), ==, 0);
  g_assert_cmpuint (info.n_labels, ==, 0);
  g_assert_null (info.labels[0]);
  simnpu_model_unload (model);
  g_free (d);
}

static void
test_bad_container_labels (void)
{
  gsize len;
  guint8 *good = compile (GRAPH (", \"labels\": [\"ball\", \"cube\"]"), &len);
  guint8 *d, *labels;
  guint64 strings_bytes;

  /* a label string offset outside the strings section */
  d = g_memdup2 (good, len);
  strings_bytes = get_u64 (section (d, SEC_STRINGS_INDEX) + 16);
  labels = d + get_u64 (section (d, SEC_LABELS_INDEX) + 8);
  put_u32 (labels + 4, (guint32) strings_bytes + 7);
  expect_load_error (d, len, "labels[1]");
  g_free (d);

  /* a label pointing at an empty string: the last byte of the strings
   * section is the final NUL */
  d = g_memdup2 (good, len);
  labels = d + get_u64 (section (d, SEC_LABELS_INDEX) + 8);
  put_u32 (labels, (guint32) strings_bytes - 1);
  expect_load_error (d, len, "labels[0]: label is empty");
  g_free (d);

  /* a label with a control character */
  d = g_memdup2 (good, len);
  {
    guint8 *strings = d + get_u64 (section (d, SEC_STRINGS_INDEX) + 8);
    guint8 *ball = memmem (strings, strings_bytes, "ball", 5);
    g_assert_nonnull (ball);
    ball[1] = '\n';
  }
  expect_load_error (d, len, "control character");
  g_free (d);

  /* a count that does not match the section size */
  d = g_memdup2 (good, len);
  put_u32 (section (d, SEC_LABELS_INDEX) + 4, 3);
  expect_load_error (d, len, "labels");
  g_free (d);

  /* an absurd count */
  d = g_memdup2 (good, len);
  put_u32 (section (d, SEC_LABELS_INDEX) + 4, LABEL_COUNT_LIMIT + 1);
  {
    simnpu_error error = { 0 };
    simnpu_model *model = NULL;
    g_assert_cmpint (simnpu_model_load_from_memory (dev, d, len, &model,
            &error), <, 0);
    g_assert_nonnull (strstr (error.message, "labels"));
    g_assert_null (model);
  }
  g_free (d);
  g_free (good);
}

static void
test_bad_json_labels (void)
{
  gchar *many, *json;
  GString *s;
  int i;

  expect_json_error (GRAPH (", \"labels\": \"ball\""), "$.labels: expected "
      "an array");
  expect_json_error (GRAPH (", \"labels\": [\"ball\", 3]"), "$.labels[1]: "
      "expected a string");
  expect_json_error (GRAPH (", \"labels\": [\"\"]"), "$.labels[0]: label is "
      "empty");
  expect_json_error (GRAPH (", \"labels\": [\"a\\tb\"]"), "$.labels[0]: "
      "label contains a control character");
  many = g_strnfill (300, 'x');
  json = g_strdup_printf (GRAPH (", \"labels\": [\"%s\"]"), many);
  expect_json_error (json, "longer than 255 bytes");
  g_free (json);
  g_free (many);
  s = g_string_new (NULL);
  for (i = 0; i <= LABEL_COUNT_LIMIT; i++)
    g_string_append_printf (s, "%s\"c%d\"", i ? ", " : "", i);
  json = g_strdup_printf (GRAPH (", \"labels\": [%s]"), s->str);
  expect_json_error (json, "at most 4096");
  g_free (json);
  g_string_free (s, TRUE);
}

/* Row scales of f32 outputs: one dequantisation scale per index of axis
 * 1, carried through the container. */
#define ROWS_GRAPH(dtype, rows) "{\"format\": \"simnpu-graph\", " \
  "\"version\": 1, \"name\": \"rows\", \"inputs\": [{\"name\": \"x\", " \
  "\"shape\": [1, 2, 3], \"dtype\": \"i8\", \"scale\": 0.5}], " \
  "\"outputs\": [{\"name\": \"y\", \"dtype\": \"" dtype "\", " \
  "\"scale\": 0.5" rows "}], \"ops\": [{\"name\": \"r\", \"type\": " \
  "\"relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}"

static void
test_row_scales (void)
{
  gsize len;
  guint8 *d = compile (ROWS_GRAPH ("f32", ", \"row_scales\": [0.5, 0.25]"),
      &len);
  simnpu_model *model = load (d, len);
  simnpu_error error = { 0 };
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  simnpu_job *job;
  const gint8 x[6] = { 2, -4, 6, 8, 10, -12 };
  float y[6];
  /* relu keeps the scale 0.5; row 1 is then read at 0.25 */
  const float expect[6] = { 1, 0, 3, 2, 2.5f, 0 };
  int i;

  g_assert_cmpint (simnpu_device_set_time_scale (dev, 0.0), ==, 0);
  in.data = x;
  in.size_bytes = sizeof (x);
  out.data = y;
  out.size_bytes = sizeof (y);
  g_assert_cmpint (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
          &job, &error), ==, 0);
  g_assert_cmpint (simnpu_job_wait (job, -1, NULL), ==, 0);
  simnpu_job_free (job);
  for (i = 0; i < 6; i++)
    g_assert_cmpfloat (y[i], ==, expect[i]);
  simnpu_model_unload (model);
  g_free (d);

  expect_json_error (ROWS_GRAPH ("i8", ", \"row_scales\": [0.5, 0.25]"),
      "only f32 outputs have row scales");
  expect_json_error (ROWS_GRAPH ("f32", ", \"row_scales\": [0.5, -1]"),
      "positive finite");
  expect_json_error (ROWS_GRAPH ("f32", ", \"row_scales\": []"),
      "one per index of axis 1");
  expect_json_error_code (ROWS_GRAPH ("f32", ", \"row_scales\": [1, 1, 1]"),
      SIMNPU_ESHAPE, "expected one per index of axis 1 (2)");
}

int
main (int argc, char **argv)
{
  simnpu_error error = { 0 };
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (simnpu_device_open ("metis", &dev, &error), ==, 0);
  g_test_add_func ("/simnpu/labels/round-trip", test_round_trip);
  g_test_add_func ("/simnpu/labels/version-1.0", test_version_1_0);
  g_test_add_func ("/simnpu/labels/bad-container", test_bad_container_labels);
  g_test_add_func ("/simnpu/labels/bad-json", test_bad_json_labels);
  g_test_add_func ("/simnpu/labels/row-scales", test_row_scales);
  ret = g_test_run ();
  simnpu_device_close (dev);
  return ret;
}
