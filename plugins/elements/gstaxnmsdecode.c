/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Decoding and NMS for axnms.
 *
 * The result is defined by a plain algorithm, which the tests implement
 * literally: dequantise every value as scale * (q - zero_point) in float;
 * per anchor take the best class (the first one on ties); an anchor is a
 * candidate if its score is finite and above the threshold (YOLOv5: the
 * objectness too) and its four corners are finite; sort candidates by
 * score, descending, then by anchor, ascending; keep greedily every
 * candidate whose IoU with every kept box of its class (of any class when
 * class-agnostic) is not above the IoU threshold, up to max-detections.
 *
 * The fast path computes the same thing. For quantised tensors the
 * dequantisation is a strictly increasing 256-entry table, so the
 * per-anchor maximum and the threshold test run on the raw bytes (biased
 * to unsigned so that SSE2's unsigned byte max applies); floats are only
 * made for the few anchors that pass. Sorting is a stable radix sort on
 * the score's bit pattern, which orders positive floats like their
 * values. */

/* This file holds the table of decoders and the entry point that picks
 * one: gstaxnmsdecode-yolo.c, -centernet.c (with its AVX2 scans in
 * -avx2.c) and -ssd.c define the rows; below them gstaxnmsdecode-nms.c
 * sorts and suppresses, gstaxnmsdecode-params.c reads the metadata and
 * binds the tensors, -work.c holds the scratch of a stream
 * (GstAxNmsWork) and -lut.c the dequantisation tables. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

/* Every decoder, at its kind. A new decoder is a file defining its row and
 * a line here (and its value in GstAxNmsDecodeKind). */
/* *INDENT-OFF* */
static const GstAxNmsDecoder *const decoders[] = {
  [GST_AX_NMS_DECODE_YOLOV8] = &gst_ax_nms_decoder_yolov8,
  [GST_AX_NMS_DECODE_YOLOV5] = &gst_ax_nms_decoder_yolov5,
  [GST_AX_NMS_DECODE_CENTERNET] = &gst_ax_nms_decoder_centernet,
  [GST_AX_NMS_DECODE_SSD] = &gst_ax_nms_decoder_ssd,
};
/* *INDENT-ON* */

G_STATIC_ASSERT (G_N_ELEMENTS (decoders) == GST_AX_NMS_DECODE_N_KINDS);

/* The decoder of @kind; NULL for a value that is no kind. */
const GstAxNmsDecoder *
gst_ax_nms_decoder_get (GstAxNmsDecodeKind kind)
{
  if ((guint) kind >= G_N_ELEMENTS (decoders))
    return NULL;
  return decoders[kind];
}

/* The kind named @name in the metadata's "type"; FALSE if none. */
gboolean
gst_ax_nms_decoder_find (const gchar * name, GstAxNmsDecodeKind * kind)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (decoders); i++)
    if (g_str_equal (name, decoders[i]->name)) {
      *kind = (GstAxNmsDecodeKind) i;
      return TRUE;
    }
  return FALSE;
}

/* The names of the decoders for a message, quoted: "a", "b" or "c". To
 * free with g_free(). */
gchar *
gst_ax_nms_decoder_names (void)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (decoders); i++)
    g_string_append_printf (s, "%s\"%s\"", i == 0 ? "" :
        i + 1 == G_N_ELEMENTS (decoders) ? " or " : ", ", decoders[i]->name);
  return g_string_free (s, FALSE);
}

/**
 * gst_ax_nms_decode_kind_name:
 * @kind: a decoder
 *
 * Returns: (nullable): its name: the "type" of its metadata and the nick
 *   of axnms's decode property; %NULL if @kind is no decoder
 */
const gchar *
gst_ax_nms_decode_kind_name (GstAxNmsDecodeKind kind)
{
  const GstAxNmsDecoder *d = gst_ax_nms_decoder_get (kind);

  return d ? d->name : NULL;
}

/**
 * gst_ax_nms_decode_kind_description:
 * @kind: a decoder
 *
 * Returns: (nullable): a line saying what it decodes, for the values of
 *   axnms's decode property; %NULL if @kind is no decoder
 */
const gchar *
gst_ax_nms_decode_kind_description (GstAxNmsDecodeKind kind)
{
  const GstAxNmsDecoder *d = gst_ax_nms_decoder_get (kind);

  return d ? d->description : NULL;
}

/**
 * gst_ax_nms_run_multi:
 * @work: per-stream scratch, reused across calls
 * @params: the decoder
 * @inputs: (array length=n_inputs): from gst_ax_nms_inputs_from_metas(),
 *   with their data
 * @n_inputs: their number
 * @results: (out caller-allocates) (array length=max_results): the
 *   detections in tensor pixels, best first
 * @max_results: room in @results
 *
 * Returns: the number of detections, at most MIN (@max_results,
 *   @params->max_detections)
 */
guint
gst_ax_nms_run_multi (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint max_results)
{
  const guint limit = MIN (max_results, p->max_detections);
  const GstAxNmsDecoder *d;

  g_return_val_if_fail (p->score_threshold >= 0.0f, 0);
  if (limit == 0)
    return 0;

  d = gst_ax_nms_decoder_get (p->kind);
  if (d == NULL)
    return 0;
  return d->run (w, p, inputs, n_inputs, results, limit);
}
