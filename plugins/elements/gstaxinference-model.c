/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axinference's model half: the model found and loaded onto a simulated
 * device, its host sections and output pools set up, and the model
 * query answered from it. The streaming half is gstaxinference.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxinference-private.h"

#include "axfile.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_ax_inference_debug

/* ------------------------------------------------------------------ */
/* Model lookup and device setup                                        */

/* A write error of the host profile: a warning, since the stream itself
 * is fine, naming the path; once per profile. */
void
gst_ax_inference_host_profile_failed (GstAxInference * self)
{
  if (self->host_profile_failed)
    return;
  self->host_profile_failed = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("Could not write the host profile \"%s\".", self->host_profile_path),
      ("%s while writing the runtime CSV %s", simnpu_strerror (SIMNPU_EIO),
          self->host_profile_path));
}

void
gst_ax_inference_close_device (GstAxInference * self)
{
  guint i;

  if (self->pools) {
    for (i = 0; i < self->n_outputs; i++)
      if (self->pools[i]) {
        gst_buffer_pool_set_active (self->pools[i], FALSE);
        gst_object_unref (self->pools[i]);
      }
    g_clear_pointer (&self->pools, g_free);
  }
  g_clear_pointer (&self->out_specs, g_free);
  self->n_outputs = 0;
  for (i = 0; i < MAX_OUTPUTS; i++)
    g_clear_pointer (&self->dev_in_bufs[i], g_free);
  self->preamble = NULL;
  self->postamble = NULL;
  self->n_device_inputs = 0;
  self->n_device_outputs = 0;
  self->scratch_bytes = 0;
  if (self->net) {
    simnpu_model_unload (self->net);
    self->net = NULL;
  }
  if (self->shared) {
    GstAxDevice *shared = self->shared;

    if (self->host_profile) {
      if (simnpu_device_stop_host_profile (self->dev) < 0)
        gst_ax_inference_host_profile_failed (self);
      GST_OBJECT_LOCK (shared);
      shared->profiler = NULL;
      GST_OBJECT_UNLOCK (shared);
    }
    self->host_profile = FALSE;
    g_clear_pointer (&self->host_profile_path, g_free);
    GST_OBJECT_LOCK (self);
    self->shared = NULL;
    self->dev = NULL;
    GST_OBJECT_UNLOCK (self);
    /* the device closes with its last user, which may be another element */
    gst_object_unref (shared);
  }
}

/* Finds the device this element shares (same device string and
 * device-id) or opens one and announces it. */
static gboolean
acquire_device (GstAxInference * self, const gchar * device, guint device_id,
    gdouble time_scale, int *rc, simnpu_error * err)
{
  GstAxDevice *shared;

  shared = gst_ax_device_find (GST_ELEMENT (self), device, device_id);
  if (shared) {
    gdouble current = simnpu_device_get_time_scale (shared->dev);

    /* the time scale is the device's: the last element to set it wins */
    if (current != time_scale)
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("The shared device \"%s\" runs at time-scale %g; this element "
              "sets it to %g for all its users.", device, current,
              time_scale), (NULL));
  } else {
    shared = gst_ax_device_open (device, device_id, rc, err);
    if (shared == NULL)
      return FALSE;
    gst_ax_device_announce (GST_ELEMENT (self), shared);
  }
  GST_OBJECT_LOCK (self);
  self->shared = shared;
  self->dev = shared->dev;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* A device writes one host profile; the first element that asks owns it. */
static int
start_host_profile (GstAxInference * self, const gchar * path,
    simnpu_error * err)
{
  GstAxDevice *shared = self->shared;
  gboolean taken;
  int rc;

  GST_OBJECT_LOCK (shared);
  taken = shared->profiler != NULL;
  if (!taken)
    shared->profiler = self;
  GST_OBJECT_UNLOCK (shared);
  if (taken) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("The shared device \"%s\" already writes a host profile; "
            "\"%s\" is not written.", shared->spec, path),
        ("the profile of a shared device holds the jobs of all its users"));
    return 0;
  }
  rc = simnpu_device_start_host_profile (self->dev, path, err);
  if (rc < 0) {
    GST_OBJECT_LOCK (shared);
    shared->profiler = NULL;
    GST_OBJECT_UNLOCK (shared);
    return rc;
  }
  self->host_profile = TRUE;
  return 0;
}

/* Makes and maps the pages of the output buffers the element holds at
 * most at once with one tensor per frame (the queued items and the one
 * being pushed), so that the first frames' postamble or job outputs,
 * which write them, do not take the page faults of fresh memory. */
static gboolean
prefault_pool (GstBufferPool * pool, guint n, gsize size)
{
  GstBuffer *bufs[MAX_PREFAULT];
  gboolean ok = TRUE;
  guint i, got = 0;

  n = MIN (n, MAX_PREFAULT);
  n = MIN (n, MAX (MAX_PREFAULT_BYTES / MAX (size, 1), 1));
  for (got = 0; got < n && ok; got++) {
    GstMapInfo map;

    if (gst_buffer_pool_acquire_buffer (pool, &bufs[got], NULL) != GST_FLOW_OK)
      break;
    if ((ok = gst_buffer_map (bufs[got], &map, GST_MAP_WRITE))) {
      memset (map.data, 0, map.size);
      gst_buffer_unmap (bufs[got], &map);
    }
  }
  for (i = 0; i < got; i++)
    gst_buffer_unref (bufs[i]);
  return ok;
}

/* Where the device tensors of a job come from and go to. The element has
 * one public input, so with a preamble every device input is one of its
 * outputs. */
static gboolean
setup_host_sections (GstAxInference * self)
{
  simnpu_binding b;
  guint k, o;

  self->preamble = simnpu_model_get_host_section (self->net,
      SIMNPU_SECTION_PREAMBLE);
  self->postamble = simnpu_model_get_host_section (self->net,
      SIMNPU_SECTION_POSTAMBLE);
  self->n_device_inputs = self->net_info.n_device_inputs;
  self->n_device_outputs = self->net_info.n_device_outputs;
  if (self->n_device_inputs < 1 || self->n_device_inputs > MAX_OUTPUTS
      || self->n_device_outputs < 1 || self->n_device_outputs > MAX_OUTPUTS)
    return FALSE;
  if (self->preamble == NULL && self->n_device_inputs != 1)
    return FALSE;
  for (k = 0; k < self->n_device_inputs; k++) {
    simnpu_model_get_device_input (self->net, k, &self->dev_in_specs[k]);
    if (self->preamble)
      self->dev_in_bufs[k] = g_malloc0 (self->dev_in_specs[k].size_bytes);
  }
  if (self->preamble) {
    simnpu_host_section_info info;

    simnpu_host_section_get_info (self->preamble, &info);
    if (info.n_outputs != self->n_device_inputs)
      return FALSE;
  }
  self->scratch_bytes = 0;
  for (k = 0; k < self->n_device_outputs; k++) {
    simnpu_model_get_device_output (self->net, k, &self->dev_out_specs[k]);
    self->dev_out_public[k] = NOT_PUBLIC;
  }
  for (o = 0; o < self->net_info.n_outputs; o++) {
    simnpu_model_get_output_binding (self->net, o, &b);
    if (b.section == SIMNPU_SECTION_DEVICE)
      self->dev_out_public[b.index] = (gint) o;
  }
  for (k = 0; k < self->n_device_outputs; k++) {
    if (self->dev_out_public[k] != NOT_PUBLIC)
      continue;
    self->dev_out_offset[k] = self->scratch_bytes;
    /* aligned for the float outputs the postamble reads */
    self->scratch_bytes += GST_ROUND_UP_8 (self->dev_out_specs[k].size_bytes);
  }
  return TRUE;
}

gboolean
gst_ax_inference_open_device (GstAxInference * self)
{
  gchar *model, *device, *profile_host, *model_name, *path = NULL;
  gchar *tried = NULL;
  guint in_flight, device_id, i;
  gdouble time_scale;
  simnpu_error err = { 0, "" };
  int rc;

  GST_OBJECT_LOCK (self);
  model = g_strdup (self->model);
  device = g_strdup (self->device ? self->device : DEFAULT_PROP_DEVICE);
  profile_host = g_strdup (self->profile_host);
  model_name = g_strdup (self->model_name);
  in_flight = self->in_flight;
  time_scale = self->time_scale;
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);

  if (model == NULL || model[0] == '\0')
    goto no_model;
  path = gst_ax_model_find (model, &tried);
  if (path == NULL)
    goto model_not_found;
  /* the runtime CSV is written in place (fopen): over the model it would
   * destroy it */
  if (profile_host && profile_host[0] && ax_file_replaces (profile_host, path))
    goto profile_is_model;

  g_mutex_lock (&self->lock);
  self->jobs_done = 0;
  self->lag_ns = 0;
  g_mutex_unlock (&self->lock);
  if (!acquire_device (self, device, device_id, time_scale, &rc, &err))
    goto device_failed;
  simnpu_device_get_info (self->dev, &self->dev_info);
  simnpu_device_set_time_scale (self->dev, time_scale);

  rc = simnpu_model_load (self->dev, path, &self->net, &err);
  if (rc < 0)
    goto model_failed;
  simnpu_model_get_info (self->net, &self->net_info);
  if (self->net_info.n_inputs != 1)
    goto bad_inputs;
  if (self->net_info.estimate_only)
    goto estimate_only;
  if (self->net_info.n_outputs < 1 || self->net_info.n_outputs > MAX_OUTPUTS)
    goto bad_outputs;
  simnpu_model_get_input (self->net, 0, &self->in_spec);
  if (!setup_host_sections (self))
    goto bad_device_io;

  self->n_outputs = self->net_info.n_outputs;
  self->out_specs = g_new0 (simnpu_tensor_spec, self->n_outputs);
  self->pools = g_new0 (GstBufferPool *, self->n_outputs);
  self->window = in_flight ? in_flight :
      AUTO_IN_FLIGHT_PER_CORE * MAX (self->dev_info.n_cores, 1);
  for (i = 0; i < self->n_outputs; i++) {
    GstStructure *config;

    simnpu_model_get_output (self->net, i, &self->out_specs[i]);
    self->pools[i] = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (self->pools[i]);
    /* frames downstream keep their outputs alive, so let the pool grow */
    gst_buffer_pool_config_set_params (config, NULL,
        self->out_specs[i].size_bytes, self->window, 0);
    if (!gst_buffer_pool_set_config (self->pools[i], config)
        || !gst_buffer_pool_set_active (self->pools[i], TRUE)
        || !prefault_pool (self->pools[i],
            QUEUED_ITEMS_PER_JOB * self->window + 1,
            self->out_specs[i].size_bytes))
      goto pool_failed;
  }

  if (model_name == NULL || model_name[0] == '\0') {
    gchar *base = g_path_get_basename (path);

    if (g_str_has_suffix (base, MODEL_SUFFIX))
      base[strlen (base) - strlen (MODEL_SUFFIX)] = '\0';
    self->model_group = g_intern_string (base);
    g_free (base);
  } else {
    self->model_group = g_intern_string (model_name);
  }
  self->group = self->model_group;
  self->device_spec = g_intern_string (device);

  if (profile_host && profile_host[0]) {
    rc = start_host_profile (self, profile_host, &err);
    if (rc < 0)
      goto profile_failed;
    /* another user of a shared device may write it already */
    if (self->host_profile) {
      self->host_profile_failed = FALSE;
      self->host_profile_path = g_strdup (profile_host);
    }
  }

  GST_INFO_OBJECT (self, "model %s (%s) on %s (device-id %u, handle %"
      G_GUINT64_FORMAT "): %u cores, window %u, device time %" G_GUINT64_FORMAT
      " ns", self->group, path, self->dev_info.spec, device_id,
      self->shared->handle, self->dev_info.n_cores, self->window,
      self->net_info.device_ns);

  g_free (model);
  g_free (device);
  g_free (profile_host);
  g_free (model_name);
  g_free (path);
  g_free (tried);
  return TRUE;

  /* ERRORS */
no_model:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No model given."),
        ("expected the model property: a path to an .axm file or a model "
            "name"));
    goto fail;
  }
model_not_found:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Model \"%s\" not found.", model), ("looked for: %s", tried));
    goto fail;
  }
device_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE,
        ("Could not open simulated device \"%s\".", device),
        ("%s: %s", simnpu_strerror (rc), err.message));
    goto fail;
  }
model_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not load model \"%s\".", path),
        ("%s: %s", simnpu_strerror (rc), err.message));
    goto fail;
  }
bad_inputs:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Model \"%s\" has %u inputs.", path, self->net_info.n_inputs),
        ("expected a model with exactly one input tensor"));
    goto fail;
  }
bad_outputs:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Model \"%s\" has %u outputs.", path, self->net_info.n_outputs),
        ("expected 1 to %d output tensors", MAX_OUTPUTS));
    goto fail;
  }
bad_device_io:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Model \"%s\" has %u device inputs and %u device outputs.", path,
            self->net_info.n_device_inputs, self->net_info.n_device_outputs),
        ("expected 1 to %d of each, the inputs all made by the preamble",
            MAX_OUTPUTS));
    goto fail;
  }
estimate_only:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Model \"%s\" has no weights and can only be estimated.", path),
        ("expected a model compiled with weights"));
    goto fail;
  }
pool_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not set up the output buffer pool."), (NULL));
    goto fail;
  }
profile_is_model:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("The host profile \"%s\" would replace the model: "
            AX_FILE_SAME_AS_INPUT " %s.", profile_host, path),
        ("give profile-host another path"));
    goto fail;
  }
profile_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not write the host profile \"%s\".", profile_host),
        ("%s: %s", simnpu_strerror (rc), err.message));
    goto fail;
  }
fail:
  {
    gst_ax_inference_close_device (self);
    g_free (model);
    g_free (device);
    g_free (profile_host);
    g_free (model_name);
    g_free (path);
    g_free (tried);
    return FALSE;
  }
}

/* Answers the model query, from either side: the input spec for
 * axletterbox upstream, the class labels for axnms downstream. */
/* A model compiled with no preprocessing is read with the default one
 * (pixels / 255, letterbox), which is how such models were trained. */
static void
answer_model_preprocess (GstAxInference * self, GstQuery * query)
{
  GstAxModelPreprocess pp;
  simnpu_preprocess sp;
  guint c;

  gst_ax_model_preprocess_init_default (&pp);
  if (simnpu_model_get_preprocess (self->net, &sp) == 0) {
    pp.color = gst_ax_color_order_from_simnpu (sp.color);
    pp.resize = gst_ax_resize_mode_from_simnpu (sp.resize);
    pp.fill = sp.fill;
    pp.scale = sp.scale;
    for (c = 0; c < G_N_ELEMENTS (pp.mean); c++) {
      pp.mean[c] = sp.mean[c];
      pp.std[c] = sp.std[c];
    }
  }
  gst_ax_model_query_set_preprocess (query, &pp);
}

gboolean
gst_ax_inference_answer_model_query (GstAxInference * self, GstQuery * query)
{
  GstAxModelInput input;
  const simnpu_tensor_spec *s = &self->in_spec;
  const gchar *decoder;

  if (self->net == NULL || s->n_dims != SIMNPU_MAX_DIMS)
    return FALSE;
  input.dtype = gst_ax_tensor_dtype_from_simnpu (s->dtype);
  input.layout = gst_ax_tensor_layout_from_simnpu (s->layout);
  if (s->layout == SIMNPU_LAYOUT_NCHW) {
    input.channels = s->dims[1];
    input.height = s->dims[2];
    input.width = s->dims[3];
  } else {
    input.height = s->dims[1];
    input.width = s->dims[2];
    input.channels = s->dims[3];
  }
  input.scale = s->scale;
  input.zero_point = s->zero_point;
  input.name = s->name;
  input.model_name = self->model_group;
  gst_ax_model_query_set_input (query, &input);
  gst_ax_model_query_set_labels (query, self->net_info.labels,
      self->net_info.n_labels);
  answer_model_preprocess (self, query);
  decoder = simnpu_model_get_decoder_json (self->net);
  if (decoder != NULL)
    gst_ax_model_query_set_decoder (query, decoder);
  return TRUE;
}
