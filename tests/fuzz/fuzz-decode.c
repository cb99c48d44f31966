/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the decoders of model outputs on arbitrary tensor
 * bytes, shapes and quantisation: axnms's (decoder metadata, tensor
 * validation, decode and NMS, as gstaxnms.c calls them) and axclassify's
 * (scores, activation and top-k, through the element in a harness).
 *
 * Input: byte 0 picks the decoder (even: axnms, odd: axclassify).
 * axnms: the decoder metadata JSON up to a NUL (empty or invalid: the
 * defaults), then the decode kind (used without valid metadata), score and IoU thresholds
 * (/255), max detections, flags (class-agnostic, weighted NMS), the model
 * input width and height (u16, used when the metadata gives none) and
 * the number of tensors. axclassify: top-k (u16) and the activation.
 * Then each tensor: dtype, rank, dims (i16 each), scale (f32 bits), zero
 * point (i32); the rest of the input fills the tensors' bytes in turn
 * (repeated, or zeros when there is none). */

#include "fuzz-common.h"

#include "gstaxnmsdecode.h"
#include "gstaxclassify.h"

#include <gst/ax/ax.h>
#include <gst/check/gstharness.h>

#define FUZZ_MAX_TENSORS 4
/* the most tensor bytes one input may make, so that a run stays quick */
#define FUZZ_MAX_TENSOR_BYTES (16 * 1024)
#define FUZZ_THRESHOLD_STEPS 255.0f
#define FUZZ_MAX_DETECTIONS 256
#define FUZZ_FLAG_AGNOSTIC 1
#define FUZZ_FLAG_WEIGHTED 2
#define FUZZ_N_KINDS 4
#define FUZZ_N_DTYPES 3
#define FUZZ_N_ACTIVATIONS 4
#define FUZZ_CLASSIFY_TOP_K_MAX 1000
#define FUZZ_FRAME_CAPS "video/x-raw,format=RGB,width=16,height=16," \
  "framerate=30/1"
#define FUZZ_FRAME_BYTES (16 * 16 * 3)

typedef struct
{
  const uint8_t *p, *end;
} Cursor;

static guint
take (Cursor * c, void *out, gsize n)
{
  gsize got = MIN (n, (gsize) (c->end - c->p));

  memset (out, 0, n);
  memcpy (out, c->p, got);
  c->p += got;
  return (guint) got;
}

static guint8
take_u8 (Cursor * c)
{
  guint8 v;

  take (c, &v, sizeof (v));
  return v;
}

static guint16
take_u16 (Cursor * c)
{
  guint16 v;

  take (c, &v, sizeof (v));
  return GUINT16_FROM_LE (v);
}

typedef struct
{
  GstAxTensorMeta meta;
  guint8 *bytes;
  gsize n_bytes;
} FuzzTensor;

static const gchar *const tensor_names[FUZZ_MAX_TENSORS] = {
  "output0", "output1", "output2", "output3"
};

/* Reads one tensor's header; FALSE when its bytes would be too many. */
static gboolean
take_tensor (Cursor * c, guint i, FuzzTensor * t, gsize * total)
{
  GstAxTensorMeta *m = &t->meta;
  guint d;

  memset (t, 0, sizeof (*t));
  m->name = g_intern_static_string (tensor_names[i]);
  m->role = GST_AX_TENSOR_ROLE_OUTPUT;
  m->index = i;
  m->dtype = (GstAxTensorDType) (take_u8 (c) % FUZZ_N_DTYPES);
  m->layout = GST_AX_TENSOR_LAYOUT_NHWC;
  m->n_dims = 1 + take_u8 (c) % GST_AX_TENSOR_MAX_DIMS;
  for (d = 0; d < m->n_dims; d++)
    m->dims[d] = (gint16) take_u16 (c);
  take (c, &m->scale, sizeof (m->scale));
  take (c, &m->zero_point, sizeof (m->zero_point));
  m->roi_id = GST_AX_TENSOR_ROI_NONE;
  /* element counts of dims up to 2^15 each cannot overflow a gsize; the
   * bytes are capped before anything is allocated */
  t->n_bytes = gst_ax_tensor_meta_n_bytes (m);
  if (t->n_bytes > FUZZ_MAX_TENSOR_BYTES - *total)
    return FALSE;
  *total += t->n_bytes;
  return TRUE;
}

static void
fill_tensor (Cursor * c, FuzzTensor * t)
{
  gsize left = (gsize) (c->end - c->p), k;

  /* exactly the shape's size: ASan catches a read past it */
  t->bytes = g_malloc0 (MAX (t->n_bytes, 1));
  if (left == 0)
    return;
  for (k = 0; k < t->n_bytes; k++)
    t->bytes[k] = c->p[k % left];
  c->p += MIN (left, t->n_bytes);
}

static void
fuzz_nms (Cursor * c)
{
  static GstAxNmsWork *work;
  static GstAxNmsResult results[FUZZ_MAX_DETECTIONS];
  const GstAxTensorMeta *metas[FUZZ_MAX_TENSORS];
  GstAxNmsInput inputs[GST_AX_NMS_MAX_INPUTS];
  FuzzTensor tensors[FUZZ_MAX_TENSORS];
  const uint8_t *nul = memchr (c->p, '\0', (gsize) (c->end - c->p));
  GstAxNmsParams params;
  gchar *error = NULL;
  guint n_tensors, n_inputs = 0, i, n, flags, width, height, kind;
  gboolean have_json = FALSE;
  gsize total = 0;

  if (work == NULL)
    work = gst_ax_nms_work_new ();
  gst_ax_nms_params_init (&params);
  if (nul != NULL && nul > c->p) {
    gchar *json = g_strndup ((const gchar *) c->p, (gsize) (nul - c->p));

    have_json = gst_ax_nms_params_from_json (&params, json, &error);
    if (!have_json) {
      if (error == NULL || error[0] == '\0')
        abort ();
      g_clear_pointer (&error, g_free);
      gst_ax_nms_params_init (&params);
    }
    g_free (json);
  }
  if (nul != NULL)
    c->p = nul + 1;
  kind = take_u8 (c);
  if (!have_json)
    params.kind = (GstAxNmsDecodeKind) (kind % FUZZ_N_KINDS);
  params.score_threshold = take_u8 (c) / FUZZ_THRESHOLD_STEPS;
  params.iou_threshold = take_u8 (c) / FUZZ_THRESHOLD_STEPS;
  params.max_detections = 1 + take_u8 (c) % FUZZ_MAX_DETECTIONS;
  flags = take_u8 (c);
  params.class_agnostic = (flags & FUZZ_FLAG_AGNOSTIC) != 0;
  if (flags & FUZZ_FLAG_WEIGHTED)
    params.suppression = GST_AX_NMS_SUPPRESS_WEIGHTED;
  width = take_u16 (c);
  height = take_u16 (c);
  /* as the element does: the letterbox's size when the metadata has none */
  if (params.input_width == 0 || params.input_height == 0) {
    params.input_width = MAX (width, 1);
    params.input_height = MAX (height, 1);
  }
  n_tensors = 1 + take_u8 (c) % FUZZ_MAX_TENSORS;
  for (i = 0; i < n_tensors; i++)
    if (!take_tensor (c, i, &tensors[i], &total))
      return;
  for (i = 0; i < n_tensors; i++) {
    fill_tensor (c, &tensors[i]);
    metas[i] = &tensors[i].meta;
  }

  if (gst_ax_nms_inputs_from_metas (&params, metas, n_tensors, inputs,
          &n_inputs, &error)) {
    for (i = 0; i < n_inputs; i++)
      inputs[i].data = tensors[inputs[i].meta_index].bytes;
    n = gst_ax_nms_run_multi (work, &params, inputs, n_inputs, results,
        params.max_detections);
    if (n > params.max_detections)
      abort ();
    for (i = 0; i < n; i++)
      if (i > 0 && results[i].score > results[i - 1].score)
        abort ();
  } else if (error == NULL || error[0] == '\0') {
    abort ();
  }
  g_free (error);
  for (i = 0; i < n_tensors; i++)
    g_free (tensors[i].bytes);
}

static GstHarness *classify;

static void
free_classify (void)
{
  gst_harness_teardown (classify);
}

static void
fuzz_classify (Cursor * c)
{
  FuzzTensor t;
  GstBuffer *frame, *data, *out;
  gsize total = 0;
  guint top_k, activation;

  if (classify == NULL) {
    gst_init (NULL, NULL);
    GST_ELEMENT_REGISTER (axclassify, NULL);
    classify = gst_harness_new ("axclassify");
    gst_harness_set_src_caps_str (classify, FUZZ_FRAME_CAPS);
    atexit (free_classify);
  }
  top_k = 1 + take_u16 (c) % FUZZ_CLASSIFY_TOP_K_MAX;
  activation = take_u8 (c) % FUZZ_N_ACTIVATIONS;
  if (!take_tensor (c, 0, &t, &total))
    return;
  fill_tensor (c, &t);
  g_object_set (classify->element, "top-k", top_k, NULL);
  gst_util_set_object_arg (G_OBJECT (classify->element), "activation",
      activation == 0 ? "auto" : activation == 1 ? "none" :
      activation == 2 ? "softmax" : "sigmoid");
  frame = gst_buffer_new_allocate (NULL, FUZZ_FRAME_BYTES, NULL);
  gst_buffer_memset (frame, 0, 0, FUZZ_FRAME_BYTES);
  data = gst_buffer_new_memdup (t.bytes, MAX (t.n_bytes, 1));
  gst_buffer_add_ax_tensor_meta (frame, t.meta.name, t.meta.role,
      t.meta.dtype, t.meta.layout, t.meta.n_dims, t.meta.dims, t.meta.scale,
      t.meta.zero_point, data);
  if (gst_harness_push (classify, frame) == GST_FLOW_OK) {
    out = gst_harness_pull (classify);
    if (out == NULL)
      abort ();
    gst_buffer_unref (out);
  }
  g_free (t.bytes);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  Cursor c = { data, data + size };

  if (size == 0)
    return 0;
  if (take_u8 (&c) % 2 == 0)
    fuzz_nms (&c);
  else
    fuzz_classify (&c);
  return 0;
}
