/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxmodelquery
 * @title: GstAxModelQuery
 * @short_description: asking the model for its input spec and labels
 *
 * A custom query that axinference answers, on either pad, with the loaded
 * model's input tensor spec (gst_ax_model_query_set_input()) and its
 * class labels (gst_ax_model_query_set_labels()).
 *
 * axletterbox sends it downstream when its size or dtype is left to
 * default, so a plain `axletterbox ! axinference model=...` needs no
 * properties. axnms sends it upstream, once per caps, when its `labels`
 * property is not set, so its detections carry the model's class names.
 */

#define LABELS_FIELD "labels"
#define PREPROCESS_FIELD "preprocess"
#define DECODER_FIELD "decoder"
#define PREPROCESS_NAME "preprocess"
#define DEFAULT_PIXEL_SCALE (1.0f / 255.0f)
#define N_COLOR_CHANNELS 3

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxmodelquery.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DLADDR
#include <dlfcn.h>
#endif

/**
 * gst_ax_model_query_new:
 *
 * Returns: (transfer full): an unanswered model input query
 *
 * Since: 0.2
 */
GstQuery *
gst_ax_model_query_new (void)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new_empty (GST_AX_MODEL_QUERY_NAME));
}

/**
 * gst_ax_model_query_is:
 * @query: a query
 *
 * Returns: whether @query is a model input query
 *
 * Since: 0.2
 */
gboolean
gst_ax_model_query_is (GstQuery * query)
{
  const GstStructure *s;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  return s != NULL && gst_structure_has_name (s, GST_AX_MODEL_QUERY_NAME);
}

/**
 * gst_ax_model_query_set_input:
 * @query: a writable model input query
 * @input: the answer
 *
 * Answers the query.
 *
 * Since: 0.2
 */
void
gst_ax_model_query_set_input (GstQuery * query, const GstAxModelInput * input)
{
  GstStructure *s;

  g_return_if_fail (gst_ax_model_query_is (query));

  s = gst_query_writable_structure (query);
  gst_structure_set (s,
      "width", G_TYPE_INT, input->width,
      "height", G_TYPE_INT, input->height,
      "channels", G_TYPE_INT, input->channels,
      "dtype", G_TYPE_STRING, gst_ax_tensor_dtype_to_string (input->dtype),
      "layout", G_TYPE_STRING,
      input->layout == GST_AX_TENSOR_LAYOUT_NCHW ? "nchw" : "nhwc",
      "scale", G_TYPE_DOUBLE, (gdouble) input->scale,
      "zero-point", G_TYPE_INT, input->zero_point,
      "name", G_TYPE_STRING, input->name ? input->name : "",
      "model-name", G_TYPE_STRING,
      input->model_name ? input->model_name : "", NULL);
}

/**
 * gst_ax_model_query_parse_input:
 * @query: an answered model input query
 * @input: (out): the answer
 *
 * Returns: %FALSE if nobody answered the query or the answer is incomplete
 *
 * Since: 0.2
 */
gboolean
gst_ax_model_query_parse_input (GstQuery * query, GstAxModelInput * input)
{
  const GstStructure *s;
  const gchar *dtype, *layout;
  gdouble scale;

  g_return_val_if_fail (gst_ax_model_query_is (query), FALSE);

  s = gst_query_get_structure (query);
  dtype = gst_structure_get_string (s, "dtype");
  layout = gst_structure_get_string (s, "layout");
  if (!gst_structure_get_int (s, "width", &input->width) ||
      !gst_structure_get_int (s, "height", &input->height) ||
      !gst_structure_get_int (s, "channels", &input->channels) ||
      !gst_structure_get_double (s, "scale", &scale) ||
      !gst_structure_get_int (s, "zero-point", &input->zero_point) ||
      dtype == NULL || layout == NULL ||
      !gst_ax_tensor_dtype_from_string (dtype, &input->dtype))
    return FALSE;

  input->scale = scale;
  input->layout = g_str_equal (layout, "nchw") ?
      GST_AX_TENSOR_LAYOUT_NCHW : GST_AX_TENSOR_LAYOUT_NHWC;
  input->name = g_intern_string (gst_structure_get_string (s, "name"));
  input->model_name =
      g_intern_string (gst_structure_get_string (s, "model-name"));
  return TRUE;
}

/**
 * gst_ax_model_query_set_labels:
 * @query: a writable model query
 * @labels: (array length=n_labels) (nullable): the model's class labels,
 *   class 0 first
 * @n_labels: number of labels; 0 for a model that carries none
 *
 * Adds the model's class labels to the answer. Call it together with
 * gst_ax_model_query_set_input().

 *
 * Since: 0.2
 */
void
gst_ax_model_query_set_labels (GstQuery * query, const gchar * const *labels,
    guint n_labels)
{
  GValue array = G_VALUE_INIT, v = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  g_return_if_fail (gst_ax_model_query_is (query));
  g_return_if_fail (labels != NULL || n_labels == 0);

  gst_value_array_init (&array, n_labels);
  g_value_init (&v, G_TYPE_STRING);
  for (i = 0; i < n_labels; i++) {
    g_value_set_string (&v, labels[i]);
    gst_value_array_append_value (&array, &v);
  }
  g_value_unset (&v);
  s = gst_query_writable_structure (query);
  gst_structure_take_value (s, LABELS_FIELD, &array);
}

/**
 * gst_ax_model_query_parse_labels:
 * @query: a model query
 * @labels: (out) (transfer full) (array zero-terminated=1): the class
 *   labels, class 0 first; free with g_strfreev()
 *
 * Returns: %FALSE, with @labels set to %NULL, if the answer carries no
 *   labels field (nobody answered, or an answer without labels); %TRUE
 *   otherwise, also for a model with no labels (an empty list)

 *
 * Since: 0.2
 */
gboolean
gst_ax_model_query_parse_labels (GstQuery * query, gchar *** labels)
{
  const GstStructure *s;
  const GValue *array;
  guint i, n;

  g_return_val_if_fail (labels != NULL, FALSE);
  *labels = NULL;
  g_return_val_if_fail (gst_ax_model_query_is (query), FALSE);

  s = gst_query_get_structure (query);
  array = gst_structure_get_value (s, LABELS_FIELD);
  if (array == NULL || !GST_VALUE_HOLDS_ARRAY (array))
    return FALSE;
  n = gst_value_array_get_size (array);
  for (i = 0; i < n; i++)
    if (!G_VALUE_HOLDS_STRING (gst_value_array_get_value (array, i)))
      return FALSE;
  *labels = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++)
    (*labels)[i] = g_value_dup_string (gst_value_array_get_value (array, i));
  return TRUE;
}

/**
 * gst_ax_model_preprocess_init_default:
 * @preprocess: (out caller-allocates): the preprocessing to fill
 *
 * Fills in what a model that stores no preprocessing is read as: RGB,
 * letterbox, fill 114, pixel values divided by 255.
 *
 * Since: 0.2
 */
void
gst_ax_model_preprocess_init_default (GstAxModelPreprocess * preprocess)
{
  guint c;

  g_return_if_fail (preprocess != NULL);
  preprocess->color = GST_AX_COLOR_ORDER_RGB;
  preprocess->resize = GST_AX_RESIZE_LETTERBOX;
  preprocess->fill = GST_AX_LETTERBOX_DEFAULT_FILL;
  preprocess->scale = DEFAULT_PIXEL_SCALE;
  for (c = 0; c < N_COLOR_CHANNELS; c++) {
    preprocess->mean[c] = 0.0f;
    preprocess->std[c] = 1.0f;
  }
}

static const gchar *
color_to_string (GstAxColorOrder color)
{
  switch (color) {
    case GST_AX_COLOR_ORDER_BGR:
      return "bgr";
    case GST_AX_COLOR_ORDER_GRAY:
      return "gray";
    case GST_AX_COLOR_ORDER_RGB:
    default:
      return "rgb";
  }
}

static gboolean
color_from_string (const gchar * s, GstAxColorOrder * color)
{
  if (g_strcmp0 (s, "rgb") == 0)
    *color = GST_AX_COLOR_ORDER_RGB;
  else if (g_strcmp0 (s, "bgr") == 0)
    *color = GST_AX_COLOR_ORDER_BGR;
  else if (g_strcmp0 (s, "gray") == 0)
    *color = GST_AX_COLOR_ORDER_GRAY;
  else
    return FALSE;
  return TRUE;
}

/**
 * gst_ax_model_query_set_preprocess:
 * @query: a model query
 * @preprocess: the model's preprocessing
 *
 * Answers the model query with the model's preprocessing (axinference
 * does, for axletterbox upstream).
 *
 * Since: 0.2
 */
void
gst_ax_model_query_set_preprocess (GstQuery * query,
    const GstAxModelPreprocess * preprocess)
{
  GstStructure *s, *pp;

  g_return_if_fail (gst_ax_model_query_is (query));
  g_return_if_fail (preprocess != NULL);

  pp = gst_structure_new (PREPROCESS_NAME,
      "color", G_TYPE_STRING, color_to_string (preprocess->color),
      "resize", G_TYPE_STRING,
      preprocess->resize == GST_AX_RESIZE_STRETCH ? "stretch" : "letterbox",
      "fill", G_TYPE_UINT, (guint) preprocess->fill,
      "scale", G_TYPE_DOUBLE, (gdouble) preprocess->scale,
      "mean-0", G_TYPE_DOUBLE, (gdouble) preprocess->mean[0],
      "mean-1", G_TYPE_DOUBLE, (gdouble) preprocess->mean[1],
      "mean-2", G_TYPE_DOUBLE, (gdouble) preprocess->mean[2],
      "std-0", G_TYPE_DOUBLE, (gdouble) preprocess->std[0],
      "std-1", G_TYPE_DOUBLE, (gdouble) preprocess->std[1],
      "std-2", G_TYPE_DOUBLE, (gdouble) preprocess->std[2], NULL);
  s = gst_query_writable_structure (query);
  gst_structure_set (s, PREPROCESS_FIELD, GST_TYPE_STRUCTURE, pp, NULL);
  gst_structure_free (pp);
}

/**
 * gst_ax_model_query_parse_preprocess:
 * @query: a model query
 * @preprocess: (out caller-allocates): the model's preprocessing
 *
 * Reads the model's preprocessing from an answered model query.
 *
 * Returns: %FALSE if the answer carries none (then @preprocess holds the
 *   default of gst_ax_model_preprocess_init_default()) or a malformed one
 *
 * Since: 0.2
 */
gboolean
gst_ax_model_query_parse_preprocess (GstQuery * query,
    GstAxModelPreprocess * preprocess)
{
  const GstStructure *s, *pp;
  const GValue *v;
  gdouble scale, mean[N_COLOR_CHANNELS], std[N_COLOR_CHANNELS];
  guint fill, c;
  const gchar *resize;

  g_return_val_if_fail (preprocess != NULL, FALSE);
  gst_ax_model_preprocess_init_default (preprocess);
  g_return_val_if_fail (gst_ax_model_query_is (query), FALSE);

  s = gst_query_get_structure (query);
  v = gst_structure_get_value (s, PREPROCESS_FIELD);
  if (v == NULL || !GST_VALUE_HOLDS_STRUCTURE (v))
    return FALSE;
  pp = gst_value_get_structure (v);
  resize = gst_structure_get_string (pp, "resize");
  if (!color_from_string (gst_structure_get_string (pp, "color"),
          &preprocess->color) || resize == NULL
      || !gst_structure_get_uint (pp, "fill", &fill) || fill > G_MAXUINT8
      || !gst_structure_get_double (pp, "scale", &scale)
      || !gst_structure_get_double (pp, "mean-0", &mean[0])
      || !gst_structure_get_double (pp, "mean-1", &mean[1])
      || !gst_structure_get_double (pp, "mean-2", &mean[2])
      || !gst_structure_get_double (pp, "std-0", &std[0])
      || !gst_structure_get_double (pp, "std-1", &std[1])
      || !gst_structure_get_double (pp, "std-2", &std[2]))
    goto malformed;
  if (g_str_equal (resize, "stretch"))
    preprocess->resize = GST_AX_RESIZE_STRETCH;
  else if (g_str_equal (resize, "letterbox"))
    preprocess->resize = GST_AX_RESIZE_LETTERBOX;
  else
    goto malformed;
  if (!(scale > 0.0) || !isfinite (scale))
    goto malformed;
  for (c = 0; c < N_COLOR_CHANNELS; c++)
    if (!isfinite (mean[c]) || !isfinite (std[c]) || std[c] == 0.0)
      goto malformed;
  preprocess->fill = (guint8) fill;
  preprocess->scale = (gfloat) scale;
  for (c = 0; c < N_COLOR_CHANNELS; c++) {
    preprocess->mean[c] = (gfloat) mean[c];
    preprocess->std[c] = (gfloat) std[c];
  }
  return TRUE;

malformed:
  gst_ax_model_preprocess_init_default (preprocess);
  return FALSE;
}

/**
 * gst_ax_model_query_set_decoder:
 * @query: a model query
 * @decoder_json: the model's decoder metadata, a JSON object such as
 *   `{"type": "centernet", ...}` (see docs/models.md)
 *
 * Answers the model query with the decoder the model's outputs are meant
 * for (axinference does, for axnms downstream).
 *
 * Since: 0.2
 */
void
gst_ax_model_query_set_decoder (GstQuery * query, const gchar * decoder_json)
{
  GstStructure *s;

  g_return_if_fail (gst_ax_model_query_is (query));
  g_return_if_fail (decoder_json != NULL);
  s = gst_query_writable_structure (query);
  gst_structure_set (s, DECODER_FIELD, G_TYPE_STRING, decoder_json, NULL);
}

/**
 * gst_ax_model_query_parse_decoder:
 * @query: a model query
 * @decoder_json: (out) (transfer full): the decoder metadata JSON
 *
 * Returns: %FALSE if the answer carries no decoder metadata
 *
 * Since: 0.2
 */
gboolean
gst_ax_model_query_parse_decoder (GstQuery * query, gchar ** decoder_json)
{
  const gchar *json;

  g_return_val_if_fail (decoder_json != NULL, FALSE);
  *decoder_json = NULL;
  g_return_val_if_fail (gst_ax_model_query_is (query), FALSE);
  json = gst_structure_get_string (gst_query_get_structure (query),
      DECODER_FIELD);
  if (json == NULL)
    return FALSE;
  *decoder_json = g_strdup (json);
  return TRUE;
}

#define TRIED_SEPARATOR ", "

/* Whether @path is one of the entries of @tried: a whole entry, as one
 * path can end another (a DESTDIR copy of the prefix's models dir). */
static gboolean
tried_has (const GString * tried, const gchar * path)
{
  gchar **entries = g_strsplit (tried->str, TRIED_SEPARATOR, -1);
  gboolean has = g_strv_contains ((const gchar * const *) entries, path);

  g_strfreev (entries);
  return has;
}

static gchar *
find_in_dir (const gchar * dir, const gchar * name, GString * tried)
{
  gchar *file = g_strconcat (name, GST_AX_MODEL_SUFFIX, NULL);
  gchar *path = g_build_filename (dir, file, NULL);

  g_free (file);
  /* GST_AX_MODEL_PATH often names the build's models dir as well */
  if (!tried_has (tried, path))
    g_string_append_printf (tried, "%s%s", tried->len ? TRIED_SEPARATOR : "",
        path);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_free (path);
  return NULL;
}

/* The directory this library was loaded from, symlinks resolved, or NULL
 * where the platform cannot say. */
static gchar *
own_library_dir (void)
{
#ifdef HAVE_DLADDR
  Dl_info info;
  char *real;
  gchar *dir;

  if (dladdr ((const void *) gst_ax_model_find, &info) == 0
      || info.dli_fname == NULL)
    return NULL;
  real = realpath (info.dli_fname, NULL);
  if (real == NULL)
    return NULL;
  dir = g_path_get_dirname (real);
  free (real);
  return dir;
#else
  return NULL;
#endif
}

static gboolean
same_dir (const gchar * a, const gchar * b)
{
  char *ra = realpath (a, NULL);
  char *rb = realpath (b, NULL);
  gboolean same = ra != NULL && rb != NULL && strcmp (ra, rb) == 0;

  free (ra);
  free (rb);
  return same;
}

/* The directories searched after $GST_AX_MODEL_PATH, computed once. The
 * build tree's models only when this library is the build tree's own (an
 * uninstalled build), so an installed copy never reads a stale build dir.
 * An installed library looks in the models dir at the same place relative
 * to itself as at install time, so a DESTDIR or moved install finds its
 * own models, then in the models dir of the configured prefix. */
static const gchar *const *
default_model_dirs (void)
{
  static gchar **dirs;

  if (g_once_init_enter (&dirs)) {
    GPtrArray *a = g_ptr_array_new ();
    gchar *lib_dir = own_library_dir ();

    if (lib_dir != NULL && same_dir (lib_dir, GST_AX_BUILD_LIB_DIR))
      g_ptr_array_add (a, g_strdup (GST_AX_BUILD_MODELS_DIR));
    else if (lib_dir != NULL)
      g_ptr_array_add (a, g_canonicalize_filename
          (GST_AX_MODELS_DIR_FROM_LIBDIR, lib_dir));
    g_ptr_array_add (a, g_strdup (GST_AX_INSTALLED_MODELS_DIR));
    g_ptr_array_add (a, NULL);
    g_free (lib_dir);
    g_once_init_leave (&dirs, (gchar **) g_ptr_array_free (a, FALSE));
  }
  return (const gchar * const *) dirs;
}

/**
 * gst_ax_model_find:
 * @model: a model name (e.g. "centernet-coco") or a path to an .axm file
 * @tried: (out) (transfer full) (optional): the paths looked at, comma
 *   separated, for an error message
 *
 * Finds a compiled model the way axinference's "model" property does: a
 * path (anything with a directory separator or the .axm suffix) is used
 * as is; a name is looked up as NAME.axm in each directory of
 * $GST_AX_MODEL_PATH; then, in an uninstalled build only, in the build's
 * models directory; then in the installed models directory,
 * `DATADIR/gst-ax/models`, first where it lies relative to the installed
 * libgstax-1.0 (so a DESTDIR or moved install finds its own models), then
 * under the configured prefix.
 *
 * Returns: (transfer full) (nullable): the model file, or %NULL if none
 *
 * Since: 0.2
 */
gchar *
gst_ax_model_find (const gchar * model, gchar ** tried)
{
  GString *t;
  const gchar *env;
  const gchar *const *dir;
  gchar *path = NULL;

  g_return_val_if_fail (model != NULL, NULL);

  t = g_string_new (NULL);
  if (strchr (model, G_DIR_SEPARATOR) != NULL
      || g_str_has_suffix (model, GST_AX_MODEL_SUFFIX)) {
    g_string_append (t, model);
    if (g_file_test (model, G_FILE_TEST_IS_REGULAR))
      path = g_strdup (model);
    goto done;
  }

  env = g_getenv (GST_AX_MODEL_PATH_ENV);
  if (env != NULL) {
    gchar **dirs = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
    gchar **d;

    for (d = dirs; *d && path == NULL; d++)
      if (**d)
        path = find_in_dir (*d, model, t);
    g_strfreev (dirs);
  }
  for (dir = default_model_dirs (); *dir && path == NULL; dir++)
    path = find_in_dir (*dir, model, t);

done:
  if (tried != NULL)
    *tried = g_string_free (t, FALSE);
  else
    g_string_free (t, TRUE);
  return path;
}
