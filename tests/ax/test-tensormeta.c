/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>

static GstBuffer *
make_tensor_data (gsize size, guint8 first)
{
  GstBuffer *data = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (data, &map, GST_MAP_WRITE));
  for (i = 0; i < size; i++)
    map.data[i] = (guint8) (first + i);
  gst_buffer_unmap (data, &map);
  return data;
}

static GstAxTensorMeta *
add_tensor (GstBuffer * frame, const gchar * name, GstAxTensorRole role,
    guint index, gint64 h, gint64 w)
{
  const gint64 dims[4] = { 1, h, w, 3 };
  GstAxTensorMeta *meta;

  meta = gst_buffer_add_ax_tensor_meta (frame, name, role,
      GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NHWC, 4, dims,
      1.0f / 255, -128, make_tensor_data (h * w * 3, (guint8) index));
  fail_unless (meta != NULL);
  meta->index = index;
  return meta;
}

GST_START_TEST (test_add_and_get)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 64, NULL);
  GstAxTensorMeta *in, *out0, *out1;

  in = add_tensor (frame, "images", GST_AX_TENSOR_ROLE_INPUT, 0, 4, 5);
  out0 = add_tensor (frame, "boxes", GST_AX_TENSOR_ROLE_OUTPUT, 0, 2, 2);
  out1 = add_tensor (frame, "scores", GST_AX_TENSOR_ROLE_OUTPUT, 1, 3, 3);

  fail_unless_equals_int (gst_ax_tensor_meta_n_elements (in), 60);
  fail_unless_equals_int (gst_ax_tensor_meta_n_bytes (out1), 27);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_name (frame, "images") == in);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_name (frame, "scores") == out1);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_name (frame, "none") == NULL);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_role (frame,
          GST_AX_TENSOR_ROLE_OUTPUT, 0, 0) == out0);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_role (frame,
          GST_AX_TENSOR_ROLE_OUTPUT, 0, 1) == out1);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_role (frame,
          GST_AX_TENSOR_ROLE_INPUT, 0, 0) == in);
  fail_unless (gst_buffer_get_ax_tensor_meta_by_role (frame,
          GST_AX_TENSOR_ROLE_INPUT, 1, 0) == NULL);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (frame,
          GST_AX_TENSOR_ROLE_OUTPUT), 2);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (frame,
          GST_AX_TENSOR_ROLE_INPUT), 1);
  fail_unless_equals_float (in->scale, 1.0f / 255);
  fail_unless_equals_int (in->zero_point, -128);

  gst_buffer_unref (frame);
}

GST_END_TEST;

GST_START_TEST (test_data_too_small)
{
  GstBuffer *frame = gst_buffer_new ();
  const gint64 dims[2] = { 10, 10 };
  GstAxTensorMeta *meta;

  ASSERT_WARNING (meta = gst_buffer_add_ax_tensor_meta (frame, "t",
          GST_AX_TENSOR_ROLE_OUTPUT, GST_AX_TENSOR_DTYPE_F32,
          GST_AX_TENSOR_LAYOUT_NHWC, 2, dims, 1.0f, 0,
          gst_buffer_new_allocate (NULL, 100, NULL)));
  fail_unless (meta == NULL);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (frame,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  gst_buffer_unref (frame);
}

GST_END_TEST;

GST_START_TEST (test_copy_shares_data)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 64, NULL);
  GstBuffer *copy, *deep;
  GstAxTensorMeta *src, *dst;
  GstAxLetterboxGeometry lb;

  src = add_tensor (frame, "images", GST_AX_TENSOR_ROLE_INPUT, 0, 8, 8);
  fail_unless (gst_ax_letterbox_geometry_init (&lb, 16, 8, 8, 8, TRUE, TRUE,
          114));
  src->letterbox = lb;
  src->has_letterbox = TRUE;
  src->instance = 3;
  /* a new tensor comes from no region until told */
  fail_unless_equals_int (src->roi_id, GST_AX_TENSOR_ROI_NONE);
  src->roi_id = 12;
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (src->data), 1);

  copy = gst_buffer_copy (frame);
  dst = gst_buffer_get_ax_tensor_meta_by_name (copy, "images");
  fail_unless (dst != NULL);
  fail_unless (dst != src);
  /* the copy refers to the same tensor bytes */
  fail_unless (dst->data == src->data);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (src->data), 2);
  fail_unless_equals_int (dst->n_dims, 4);
  fail_unless_equals_int (dst->dims[1], 8);
  fail_unless_equals_int (dst->instance, 3);
  fail_unless_equals_int (dst->roi_id, 12);
  fail_unless (dst->has_letterbox);
  fail_unless_equals_int (dst->letterbox.pad_y, 2);
  fail_unless_equals_float (dst->letterbox.scale, 0.5);

  deep = gst_buffer_copy_deep (frame);
  dst = gst_buffer_get_ax_tensor_meta_by_name (deep, "images");
  fail_unless (dst != NULL && dst->data == src->data);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (src->data), 3);

  gst_buffer_unref (copy);
  gst_buffer_unref (deep);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (src->data), 1);
  gst_buffer_unref (frame);
}

GST_END_TEST;

GST_START_TEST (test_transform_scale_drops)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 64, NULL);
  GstBuffer *dest = gst_buffer_new_allocate (NULL, 64, NULL);
  GstAxTensorMeta *src;
  const GstMetaInfo *info = GST_AX_TENSOR_META_INFO;
  GstVideoMetaTransform trans = { NULL, NULL };

  src = add_tensor (frame, "images", GST_AX_TENSOR_ROLE_INPUT, 0, 2, 2);
  /* a resize invalidates the letterbox geometry: no transform */
  fail_if (info->transform_func (dest, (GstMeta *) src, frame,
          gst_video_meta_transform_scale_get_quark (), &trans));
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (dest,
          GST_AX_TENSOR_ROLE_INPUT), 0);
  fail_unless (gst_meta_api_type_has_tag (GST_AX_TENSOR_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_SIZE_STR)));
  gst_buffer_unref (frame);
  gst_buffer_unref (dest);
}

GST_END_TEST;

GST_START_TEST (test_dtype_strings)
{
  GstAxTensorDType d;

  fail_unless (gst_ax_tensor_dtype_from_string ("int8", &d));
  fail_unless_equals_int (d, GST_AX_TENSOR_DTYPE_I8);
  fail_unless (gst_ax_tensor_dtype_from_string ("f32", &d));
  fail_unless_equals_int (d, GST_AX_TENSOR_DTYPE_F32);
  fail_unless_equals_int (gst_ax_tensor_dtype_size (d), 4);
  fail_if (gst_ax_tensor_dtype_from_string ("int4", &d));
  fail_unless_equals_string (gst_ax_tensor_dtype_to_string
      (GST_AX_TENSOR_DTYPE_U8), "u8");
}

GST_END_TEST;

GST_START_TEST (test_model_query_labels)
{
  GstQuery *q = gst_ax_model_query_new ();
  const gchar *const names[] = { "ball", "grosse Kugel", "" };
  gchar **labels = (gchar **) 0x1;

  /* unanswered: no labels */
  fail_if (gst_ax_model_query_parse_labels (q, &labels));
  fail_unless (labels == NULL);

  gst_ax_model_query_set_labels (q, names, G_N_ELEMENTS (names));
  fail_unless (gst_ax_model_query_parse_labels (q, &labels));
  fail_unless_equals_int (g_strv_length (labels), 3);
  fail_unless_equals_string (labels[0], "ball");
  fail_unless_equals_string (labels[1], "grosse Kugel");
  fail_unless_equals_string (labels[2], "");
  g_strfreev (labels);

  /* answered again: replaced, and a model without labels gives an empty
   * list rather than none */
  gst_ax_model_query_set_labels (q, NULL, 0);
  fail_unless (gst_ax_model_query_parse_labels (q, &labels));
  fail_unless (labels != NULL && labels[0] == NULL);
  g_strfreev (labels);

  /* a malformed answer (not strings) is refused */
  {
    GValue array = G_VALUE_INIT, v = G_VALUE_INIT;
    gst_value_array_init (&array, 1);
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, 3);
    gst_value_array_append_value (&array, &v);
    gst_structure_take_value (gst_query_writable_structure (q), "labels",
        &array);
    fail_if (gst_ax_model_query_parse_labels (q, &labels));
    fail_unless (labels == NULL);
  }
  gst_query_unref (q);
}

GST_END_TEST;

GST_START_TEST (test_model_query)
{
  GstQuery *q = gst_ax_model_query_new ();
  GstAxModelInput in = { 640, 384, 3, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255, -128, "images", "yolo"
  };
  GstAxModelInput out;

  fail_unless (gst_ax_model_query_is (q));
  fail_if (gst_ax_model_query_parse_input (q, &out));
  gst_ax_model_query_set_input (q, &in);
  fail_unless (gst_ax_model_query_parse_input (q, &out));
  fail_unless_equals_int (out.width, 640);
  fail_unless_equals_int (out.height, 384);
  fail_unless_equals_int (out.dtype, GST_AX_TENSOR_DTYPE_I8);
  fail_unless_equals_int (out.zero_point, -128);
  fail_unless_equals_float (out.scale, 1.0f / 255);
  fail_unless_equals_string (out.model_name, "yolo");
  gst_query_unref (q);

  q = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new_empty ("other"));
  fail_if (gst_ax_model_query_is (q));
  gst_query_unref (q);
}

GST_END_TEST;

static Suite *
tensormeta_suite (void)
{
  Suite *s = suite_create ("ax-tensormeta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_add_and_get);
  tcase_add_test (tc, test_data_too_small);
  tcase_add_test (tc, test_copy_shares_data);
  tcase_add_test (tc, test_transform_scale_drops);
  tcase_add_test (tc, test_dtype_strings);
  tcase_add_test (tc, test_model_query);
  tcase_add_test (tc, test_model_query_labels);
  return s;
}

GST_CHECK_MAIN (tensormeta);
