/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-axclassify
 * @title: axclassify
 *
 * Decodes the output of a classifier riding on each frame (#GstAxTensorMeta
 * of role output, as attached by axinference): the class scores are
 * dequantised (int8 and uint8 with the tensor's scale and zero point),
 * activated (softmax, sigmoid, or none when they are probabilities
 * already), and the best #GstAxClassify:top-k classes are added to the
 * region the tensor was cropped from, as "classification" parameter
 * structures (label, label_id, confidence; best first) on its
 * #GstVideoRegionOfInterestMeta (see gst_ax_detection_add_classification()).
 * The region is found by the tensor's roi_id, which axletterbox
 * roi-mode=true sets and axinference keeps. A tensor of the whole frame
 * (roi_id %GST_AX_TENSOR_ROI_NONE) is classified on a region covering the
 * frame, of roi_type "frame" (gst_ax_detection_get_frame_roi()).
 *
 * The element configures itself from the model: at caps it asks upstream
 * with the model query and reads the class labels and the decoder
 * metadata, a JSON object such as
 * `{"type": "classification", "scores": "Identity", "score_activation":
 * "none"}`: which output holds the scores and how they are activated.
 * The properties override it. Without metadata the first output is read
 * as logits (softmax).
 *
 * The tensors it consumed (the classifier's outputs and input) are
 * removed from the frame unless #GstAxClassify:keep-tensors is set.
 *
 * ## Example launch line: face, then emotion per face
 * |[
 * gst-launch-1.0 filesrc location=sample1.jpg ! decodebin ! videoconvert ! \
 *   imagefreeze num-buffers=1 ! axletterbox ! axinference model=blazeface ! \
 *   axnms ! axletterbox roi-mode=true ! axinference model=emotion ! \
 *   axclassify ! axoverlay ! videoconvert ! pngenc ! filesink location=out.png
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxclassify.h"

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_classify_debug);
#define GST_CAT_DEFAULT gst_ax_classify_debug

/**
 * GstAxClassifyActivation:
 * @GST_AX_CLASSIFY_ACTIVATION_AUTO: as the model's decoder metadata says,
 *   else softmax
 * @GST_AX_CLASSIFY_ACTIVATION_NONE: the scores are probabilities already
 * @GST_AX_CLASSIFY_ACTIVATION_SOFTMAX: the scores are logits of one
 *   distribution
 * @GST_AX_CLASSIFY_ACTIVATION_SIGMOID: each score is the logit of its own
 *   class
 *
 * How class scores become probabilities.
 */
typedef enum
{
  GST_AX_CLASSIFY_ACTIVATION_AUTO,
  GST_AX_CLASSIFY_ACTIVATION_NONE,
  GST_AX_CLASSIFY_ACTIVATION_SOFTMAX,
  GST_AX_CLASSIFY_ACTIVATION_SIGMOID,
} GstAxClassifyActivation;

#define GST_TYPE_AX_CLASSIFY_ACTIVATION (gst_ax_classify_activation_get_type ())
static GType gst_ax_classify_activation_get_type (void);

static GType
gst_ax_classify_activation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_CLASSIFY_ACTIVATION_AUTO, "The model's, else softmax", "auto"},
    {GST_AX_CLASSIFY_ACTIVATION_NONE, "Probabilities already", "none"},
    {GST_AX_CLASSIFY_ACTIVATION_SOFTMAX, "Softmax of logits", "softmax"},
    {GST_AX_CLASSIFY_ACTIVATION_SIGMOID, "Sigmoid of each logit",
        "sigmoid"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxClassifyActivation", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define DEFAULT_PROP_TOP_K 1
#define MAX_TOP_K 1000
#define DEFAULT_PROP_ACTIVATION GST_AX_CLASSIFY_ACTIVATION_AUTO
#define DEFAULT_PROP_TENSOR NULL
#define DEFAULT_PROP_KEEP_TENSORS FALSE
/* the decoder metadata's type and members */
#define DECODER_TYPE "classification"
#define DECODER_SCORES "scores"
#define DECODER_ACTIVATION "score_activation"

enum
{
  PROP_0,
  PROP_TOP_K,
  PROP_ACTIVATION,
  PROP_TENSOR,
  PROP_KEEP_TENSORS,
};

struct _GstAxClassify
{
  GstBaseTransform parent;

  /* properties, protected by the object lock */
  guint top_k;
  GstAxClassifyActivation activation;
  gchar *tensor;
  gboolean keep_tensors;

  /* streaming thread only */
  GstVideoInfo vinfo;
  gboolean have_vinfo;
  GPtrArray *labels;            /* interned, from the model */
  const gchar *model_scores;    /* interned output name, or NULL */
  GstAxClassifyActivation model_activation;
  /* grow-only scratch: the scores of one tensor and their ranking */
  gfloat *scores;
  guint *order;
  /* which classes are ranked already, all FALSE between frames */
  gboolean *taken;
  gsize scratch_size;
  GPtrArray *consumed;
  gboolean warned_no_roi;
};

G_DEFINE_TYPE (GstAxClassify, gst_ax_classify, GST_TYPE_BASE_TRANSFORM);

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axclassify, "axclassify",
    GST_RANK_NONE, GST_TYPE_AX_CLASSIFY,
    GST_DEBUG_CATEGORY_INIT (gst_ax_classify_debug, "axclassify", 0,
        "ax classification decoder"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

static void gst_ax_classify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ax_classify_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_ax_classify_finalize (GObject * object);
static gboolean gst_ax_classify_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_ax_classify_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_ax_classify_class_init (GstAxClassifyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_ax_classify_set_property;
  gobject_class->get_property = gst_ax_classify_get_property;
  gobject_class->finalize = gst_ax_classify_finalize;

  g_object_class_install_property (gobject_class, PROP_TOP_K,
      g_param_spec_uint ("top-k", "Top k",
          "How many of the best classes to add to each region, best first "
          "(at most the model's number of classes)", 1, MAX_TOP_K,
          DEFAULT_PROP_TOP_K, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ACTIVATION,
      g_param_spec_enum ("activation", "Activation",
          "How the scores become probabilities. Default: the model's "
          "decoder metadata (score_activation), else softmax",
          GST_TYPE_AX_CLASSIFY_ACTIVATION, DEFAULT_PROP_ACTIVATION,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_TENSOR,
      g_param_spec_string ("tensor", "Tensor",
          "Name of the output tensor holding the class scores. Default: "
          "the model's decoder metadata (scores), else output 0",
          DEFAULT_PROP_TENSOR, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_KEEP_TENSORS,
      g_param_spec_boolean ("keep-tensors", "Keep tensors",
          "Leave the classifier's tensors on the frame (else they are "
          "removed once decoded)", DEFAULT_PROP_KEEP_TENSORS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Classification decoder", "Filter/Analyzer/Video",
      "Adds the top-k classes of a classifier's output tensors to the "
      "regions (or the frame) the tensors were made from", "gst-ax developers");

  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ax_classify_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_ax_classify_transform_ip);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_AX_CLASSIFY_ACTIVATION, 0);
}

static void
gst_ax_classify_init (GstAxClassify * self)
{
  self->top_k = DEFAULT_PROP_TOP_K;
  self->activation = DEFAULT_PROP_ACTIVATION;
  self->tensor = g_strdup (DEFAULT_PROP_TENSOR);
  self->keep_tensors = DEFAULT_PROP_KEEP_TENSORS;
  self->model_activation = GST_AX_CLASSIFY_ACTIVATION_AUTO;
  self->consumed = g_ptr_array_new ();
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_ax_classify_finalize (GObject * object)
{
  GstAxClassify *self = GST_AX_CLASSIFY (object);

  g_free (self->tensor);
  g_clear_pointer (&self->labels, g_ptr_array_unref);
  g_free (self->scores);
  g_free (self->order);
  g_free (self->taken);
  g_ptr_array_unref (self->consumed);
  G_OBJECT_CLASS (gst_ax_classify_parent_class)->finalize (object);
}

static void
gst_ax_classify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxClassify *self = GST_AX_CLASSIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TOP_K:
      self->top_k = g_value_get_uint (value);
      break;
    case PROP_ACTIVATION:
      self->activation = g_value_get_enum (value);
      break;
    case PROP_TENSOR:
      g_free (self->tensor);
      self->tensor = g_value_dup_string (value);
      break;
    case PROP_KEEP_TENSORS:
      self->keep_tensors = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ax_classify_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAxClassify *self = GST_AX_CLASSIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TOP_K:
      g_value_set_uint (value, self->top_k);
      break;
    case PROP_ACTIVATION:
      g_value_set_enum (value, self->activation);
      break;
    case PROP_TENSOR:
      g_value_set_string (value, self->tensor);
      break;
    case PROP_KEEP_TENSORS:
      g_value_set_boolean (value, self->keep_tensors);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Reads the classifier's decoder metadata; FALSE (with @why) when it is
 * not a classifier's. */
static gboolean
parse_decoder (GstAxClassify * self, const gchar * json, gchar ** why)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *o;
  JsonNode *root;
  const gchar *type, *scores, *act;
  gboolean ok = FALSE;

  if (!json_parser_load_from_data (parser, json, -1, NULL)
      || (root = json_parser_get_root (parser)) == NULL
      || !JSON_NODE_HOLDS_OBJECT (root)) {
    *why = g_strdup ("not a JSON object");
    goto done;
  }
  o = json_node_get_object (root);
  type = json_object_get_string_member_with_default (o, "type", NULL);
  if (g_strcmp0 (type, DECODER_TYPE) != 0) {
    *why = g_strdup_printf ("type is \"%s\", not \"" DECODER_TYPE "\"",
        type ? type : "(none)");
    goto done;
  }
  scores = json_object_get_string_member_with_default (o, DECODER_SCORES, NULL);
  self->model_scores = scores ? g_intern_string (scores) : NULL;
  act = json_object_get_string_member_with_default (o, DECODER_ACTIVATION,
      "softmax");
  if (g_str_equal (act, "none"))
    self->model_activation = GST_AX_CLASSIFY_ACTIVATION_NONE;
  else if (g_str_equal (act, "softmax"))
    self->model_activation = GST_AX_CLASSIFY_ACTIVATION_SOFTMAX;
  else if (g_str_equal (act, "sigmoid"))
    self->model_activation = GST_AX_CLASSIFY_ACTIVATION_SIGMOID;
  else {
    *why = g_strdup_printf (DECODER_ACTIVATION " is \"%s\"; expected none, "
        "softmax or sigmoid", act);
    goto done;
  }
  ok = TRUE;
done:
  g_object_unref (parser);
  return ok;
}

static gboolean
gst_ax_classify_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAxClassify *self = GST_AX_CLASSIFY (trans);
  GstQuery *query;
  gchar **names = NULL, *json = NULL, *why = NULL;
  gboolean answered;
  guint i;

  self->have_vinfo = gst_video_info_from_caps (&self->vinfo, incaps);
  if (!self->have_vinfo) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " are not raw video "
        "with a size", incaps);
    return FALSE;
  }

  g_clear_pointer (&self->labels, g_ptr_array_unref);
  self->model_scores = NULL;
  self->model_activation = GST_AX_CLASSIFY_ACTIVATION_AUTO;
  query = gst_ax_model_query_new ();
  answered = gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query);
  if (answered && gst_ax_model_query_parse_labels (query, &names)) {
    self->labels = g_ptr_array_sized_new (g_strv_length (names));
    for (i = 0; names[i] != NULL; i++)
      g_ptr_array_add (self->labels, (gpointer) g_intern_string (names[i]));
    g_strfreev (names);
  }
  if (answered && gst_ax_model_query_parse_decoder (query, &json)) {
    if (!parse_decoder (self, json, &why)) {
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Ignoring the model's decoder metadata: %s.", why),
          ("metadata: %s; reading output 0 with the properties", json));
      self->model_scores = NULL;
      self->model_activation = GST_AX_CLASSIFY_ACTIVATION_AUTO;
      g_free (why);
    }
    g_free (json);
  }
  gst_query_unref (query);
  GST_INFO_OBJECT (self, "%u labels, scores '%s', activation %d",
      self->labels ? self->labels->len : 0,
      self->model_scores ? self->model_scores : "(output 0)",
      self->model_activation);
  return TRUE;
}

/* The scores of @m as floats in self->scores. */
static gboolean
read_scores (GstAxClassify * self, GstAxTensorMeta * m, gsize n)
{
  GstMapInfo map;
  gsize i;

  if (!gst_buffer_map (m->data, &map, GST_MAP_READ))
    return FALSE;
  if (map.size < gst_ax_tensor_meta_n_bytes (m)) {
    gst_buffer_unmap (m->data, &map);
    return FALSE;
  }
  switch (m->dtype) {
    case GST_AX_TENSOR_DTYPE_F32:
      memcpy (self->scores, map.data, n * sizeof (gfloat));
      break;
    case GST_AX_TENSOR_DTYPE_I8:
      for (i = 0; i < n; i++)
        self->scores[i] = m->scale *
            (gfloat) ((gint64) ((const gint8 *) map.data)[i] - m->zero_point);
      break;
    case GST_AX_TENSOR_DTYPE_U8:
      for (i = 0; i < n; i++)
        self->scores[i] = m->scale *
            (gfloat) ((gint64) map.data[i] - m->zero_point);
      break;
  }
  gst_buffer_unmap (m->data, &map);
  return TRUE;
}

static void
activate (gfloat * v, gsize n, GstAxClassifyActivation activation)
{
  gsize i;

  if (activation == GST_AX_CLASSIFY_ACTIVATION_SOFTMAX) {
    gfloat top = v[0];
    gdouble sum = 0.0;

    /* shifted by the largest logit, so that exp cannot overflow */
    for (i = 1; i < n; i++)
      top = MAX (top, v[i]);
    for (i = 0; i < n; i++) {
      v[i] = expf (v[i] - top);
      sum += v[i];
    }
    for (i = 0; i < n; i++)
      v[i] = (gfloat) (v[i] / sum);
  } else if (activation == GST_AX_CLASSIFY_ACTIVATION_SIGMOID) {
    for (i = 0; i < n; i++)
      v[i] = 1.0f / (1.0f + expf (-v[i]));
  }
}

/* The best @k indices of self->scores into self->order, best first; ties
 * go to the lower class index. A pass per rank, each O(n): marking the
 * ranked classes keeps a large top-k of many classes O(n k). */
static void
rank (GstAxClassify * self, gsize n, guint k)
{
  guint r;
  gsize i;

  for (r = 0; r < k; r++) {
    gsize best = n;

    for (i = 0; i < n; i++) {
      if (self->taken[i])
        continue;
      if (best == n || self->scores[i] > self->scores[best])
        best = i;
    }
    self->order[r] = (guint) best;
    self->taken[best] = TRUE;
  }
  for (r = 0; r < k; r++)
    self->taken[self->order[r]] = FALSE;
}

/* The tensors of @instance (outputs and input) to remove after decoding. */
static void
consume_instance (GstAxClassify * self, GstBuffer * buf, guint instance)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_AX_TENSOR_META_API_TYPE)))
    if (((GstAxTensorMeta *) m)->instance == instance)
      g_ptr_array_add (self->consumed, m);
}

static GstFlowReturn
gst_ax_classify_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstAxClassify *self = GST_AX_CLASSIFY (trans);
  GstAxClassifyActivation activation;
  const gchar *want;
  GstAxTensorMeta *m;
  gpointer state = NULL;
  gboolean keep_tensors;
  guint top_k, r, i;

  if (!self->have_vinfo)
    goto not_negotiated;

  GST_OBJECT_LOCK (self);
  top_k = self->top_k;
  activation = self->activation;
  want = self->tensor ? g_intern_string (self->tensor) : self->model_scores;
  keep_tensors = self->keep_tensors;
  GST_OBJECT_UNLOCK (self);
  if (activation == GST_AX_CLASSIFY_ACTIVATION_AUTO)
    activation = self->model_activation;
  if (activation == GST_AX_CLASSIFY_ACTIVATION_AUTO)
    activation = GST_AX_CLASSIFY_ACTIVATION_SOFTMAX;

  g_ptr_array_set_size (self->consumed, 0);
  while ((m = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_OUTPUT))) {
    GstVideoRegionOfInterestMeta *roi;
    gsize n = gst_ax_tensor_meta_n_elements (m);
    guint k;

    if (want ? m->name != want : m->index != 0)
      continue;
    if (n == 0)
      continue;
    if (n > self->scratch_size) {
      self->scores = g_renew (gfloat, self->scores, n);
      self->order = g_renew (guint, self->order, n);
      g_free (self->taken);
      self->taken = g_new0 (gboolean, n);
      self->scratch_size = n;
    }
    if (!read_scores (self, m, n))
      goto map_failed;
    activate (self->scores, n, activation);
    k = (guint) MIN ((gsize) top_k, n);
    rank (self, n, k);

    if (m->roi_id == GST_AX_TENSOR_ROI_NONE)
      roi = gst_ax_detection_get_frame_roi (buf, TRUE,
          GST_VIDEO_INFO_WIDTH (&self->vinfo),
          GST_VIDEO_INFO_HEIGHT (&self->vinfo));
    else
      roi = gst_buffer_get_video_region_of_interest_meta_id (buf, m->roi_id);
    if (roi == NULL) {
      if (!self->warned_no_roi) {
        GST_ELEMENT_WARNING (self, STREAM, FORMAT,
            ("Tensor '%s' comes from region %d, which is not on the frame; "
                "its classification is dropped.", m->name, m->roi_id),
            ("expected the regions axletterbox roi-mode=true cropped"));
        self->warned_no_roi = TRUE;
      }
      continue;
    }
    for (r = 0; r < k; r++) {
      GstAxClassification c;

      c.label_id = self->order[r];
      c.confidence = self->scores[c.label_id];
      c.label = self->labels && c.label_id < self->labels->len ?
          g_ptr_array_index (self->labels, c.label_id) : NULL;
      gst_ax_detection_add_classification (roi, &c);
    }
    GST_LOG_OBJECT (self, "region %d: class %u, %.3f", roi->id,
        self->order[0], self->scores[self->order[0]]);
    if (!keep_tensors)
      consume_instance (self, buf, m->instance);
  }

  for (i = 0; i < self->consumed->len; i++)
    gst_buffer_remove_meta (buf, g_ptr_array_index (self->consumed, i));
  g_ptr_array_set_size (self->consumed, 0);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No caps were set before the first frame."),
        ("expected video/x-raw caps with a width and height"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not read the data of tensor '%s'.", m->name),
        ("%" G_GSIZE_FORMAT " bytes needed", gst_ax_tensor_meta_n_bytes (m)));
    g_ptr_array_set_size (self->consumed, 0);
    return GST_FLOW_ERROR;
  }
}
