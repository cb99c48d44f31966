/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu_model_*: load (validation, rescheduling for the device),
 * unload, and the tensor specs and metadata. */

#include "runtime-private.h"
#include "simnpu-file.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Models                                                               */

static void
fill_spec (const simnpu__tensor * t, simnpu_tensor_spec * spec)
{
  unsigned i;

  memset (spec, 0, sizeof (*spec));
  spec->name = t->name;
  spec->dtype = t->io_dtype;
  spec->layout = t->layout;
  spec->n_dims = t->n_dims;
  for (i = 0; i < t->n_dims; i++)
    spec->dims[i] = t->dims[i];
  if (t->io_dtype == SIMNPU_DTYPE_F32) {
    spec->scale = 1.0f;
    spec->zero_point = 0;
  } else {
    spec->scale = t->scale;
    spec->zero_point = t->io_dtype == SIMNPU_DTYPE_U8 ? t->zero_point + 128 :
        t->zero_point;
  }
  spec->size_bytes = (size_t) simnpu__tensor_elements (t) *
      simnpu__dtype_size (t->io_dtype);
}

static bool
schedule_fits (const simnpu__schedule * s, const simnpu_device * dev,
    const simnpu__graph * g)
{
  unsigned i;

  if (strcmp (s->spec, dev->spec) != 0)
    return false;
  for (i = 0; i < s->n_actions; i++) {
    int32_t r = s->actions[i].resource;
    if (r != SIMNPU__RES_CORE && (r < (int32_t) dev->profile.cores
            || r >= (int32_t) dev->n_resources))
      return false;
    if (s->actions[i].op_index >= (int32_t) g->n_ops)
      return false;
  }
  return true;
}


/**
 * simnpu_model_load_from_memory:
 * @device: the device
 * @data: a compiled .axm container
 * @size_bytes: its size
 * @out_model: (out): the model
 * @error: (nullable): filled on failure, naming the field at fault
 *
 * Loads a model. The container is validated field by field; a malformed
 * one gives %SIMNPU_EFORMAT (or %SIMNPU_EVERSION, %SIMNPU_EUNSUPPORTED,
 * %SIMNPU_ESHAPE, %SIMNPU_ENOMEM for absurd sizes). If the container was
 * compiled for another device spec, the schedule is rebuilt for this one.
 *
 * Returns: 0 or a negative error
 */
int
simnpu_model_load_from_memory (simnpu_device * dev, const void *data,
    size_t size_bytes, simnpu_model ** out_model, simnpu_error * error)
{
  simnpu_model *m;
  simnpu__graph *g = NULL;
  simnpu__schedule s;
  unsigned i;
  int ret;

  if (dev == NULL || out_model == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "device and out_model must not be NULL");
  *out_model = NULL;
  if ((ret = simnpu__axm_read (data, size_bytes, &g, &s, error)) < 0)
    return ret;
  if ((ret = simnpu__graph_prepare (g, error)) < 0) {
    simnpu__graph_free (g);
    simnpu__schedule_clear (&s);
    return ret;
  }
  m = g_new0 (simnpu_model, 1);
  m->dev = dev;
  m->graph = g;
  if (!schedule_fits (&s, dev, g)) {
    simnpu__schedule_clear (&s);
    simnpu__schedule_build (g, &dev->profile, &s, error);
    m->rescheduled = true;
  } else {
    simnpu__schedule_finish (&s, &dev->profile);
  }
  m->schedule = s;
  for (i = 0; i < g->n_inputs; i++) {
    fill_spec (&g->tensors[g->inputs[i]], &m->in_specs[i]);
    m->staging_offsets[i] = m->staging_bytes;
    m->staging_bytes += (simnpu__tensor_bytes (&g->tensors[g->inputs[i]])
        + SIMNPU__STAGING_ALIGN - 1) & ~(size_t) (SIMNPU__STAGING_ALIGN - 1);
  }
  for (i = 0; i < g->n_outputs; i++)
    fill_spec (&g->tensors[g->outputs[i]], &m->out_specs[i]);
  if ((ret = simnpu__host_view_init (&m->host, g, m->in_specs, m->out_specs,
              error)) < 0) {
    simnpu__schedule_clear (&m->schedule);
    simnpu__graph_free (g);
    g_free (m);
    return ret;
  }
  if (!g->estimate_only) {
    for (i = 0; i < dev->profile.cores; i++) {
      m->arenas[i] = g_malloc0 (MAX (g->arena_bytes, 1));
      m->scratch[i] = g_aligned_alloc0 (MAX (g->scratch_bytes, 1), 1, 64);
    }
  }
  if (!g->estimate_only)
    simnpu__reserve_jobs (dev, m);
  g_mutex_lock (&dev->lock);
  m->dispatch_name = g_strdup (g->name);
  g_ptr_array_add (dev->names, (gpointer) m->dispatch_name);
  g_ptr_array_add (dev->models, m);
  g_mutex_unlock (&dev->lock);
  *out_model = m;
  return 0;
}

/**
 * simnpu_model_load:
 * @device: the device
 * @path: an .axm file
 * @out_model: (out): the model
 * @error: (nullable): filled on failure
 *
 * Reads @path and calls simnpu_model_load_from_memory().
 *
 * Returns: 0, %SIMNPU_EIO if the file cannot be read, or a load error
 */
int
simnpu_model_load (simnpu_device * dev, const char *path,
    simnpu_model ** out_model, simnpu_error * error)
{
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  int ret;

  if (path == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "path is NULL");
  if (!simnpu__file_read (path, "model", SIMNPU_FILE_MAX_WEIGHTS_BYTES,
          &contents, &len, &err)) {
    ret = simnpu__set_error (error, err->code == G_FILE_ERROR_NOENT ?
        SIMNPU_ENOENT : SIMNPU_EIO, "%s", err->message);
    g_error_free (err);
    return ret;
  }
  ret = simnpu_model_load_from_memory (dev, contents, len, out_model, error);
  if (ret < 0 && error != NULL) {
    gchar *msg = g_strdup_printf ("%s: %s", path, error->message);
    g_strlcpy (error->message, msg, sizeof (error->message));
    g_free (msg);
  }
  g_free (contents);
  return ret;
}

/**
 * simnpu_model_unload:
 * @model: (nullable): a model
 *
 * Waits for the model's outstanding jobs to complete, then frees it.
 */
void
simnpu_model_unload (simnpu_model * m)
{
  simnpu_device *dev;
  unsigned i;

  if (m == NULL)
    return;
  dev = m->dev;
  g_mutex_lock (&dev->lock);
  while (m->outstanding > 0)
    simnpu__dev_wait (dev);
  g_ptr_array_remove (dev->models, m);
  g_mutex_unlock (&dev->lock);
  for (i = 0; i < SIMNPU__MAX_CORES; i++) {
    g_free (m->arenas[i]);
    g_aligned_free (m->scratch[i]);
  }
  simnpu__host_view_clear (&m->host);
  simnpu__schedule_clear (&m->schedule);
  simnpu__graph_free (m->graph);
  g_free (m);
}

/**
 * simnpu_model_get_info:
 * @model: a model
 * @info: (out): facts about it
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_model_get_info (simnpu_model * m, simnpu_model_info * info)
{
  static const char *const no_labels[] = { NULL };

  if (m == NULL || info == NULL)
    return SIMNPU_EINVAL;
  info->name = m->graph->name;
  info->compiled_for = m->schedule.spec;
  info->n_inputs = m->host.n_inputs;
  info->n_outputs = m->host.n_outputs;
  info->n_ops = m->graph->n_ops;
  info->n_actions = m->schedule.n_actions;
  info->total_macs = m->graph->total_macs;
  info->weight_bytes = m->graph->weight_bytes;
  info->device_ns = m->schedule.device_ns;
  info->estimate_only = m->graph->estimate_only;
  info->rescheduled = m->rescheduled;
  info->n_labels = m->graph->n_labels;
  info->labels = m->graph->labels ?
      (const char *const *) m->graph->labels : no_labels;
  info->n_device_inputs = m->graph->n_inputs;
  info->n_device_outputs = m->graph->n_outputs;
  info->has_preamble = m->graph->preamble != NULL;
  info->has_postamble = m->graph->postamble != NULL;
  return 0;
}

/**
 * simnpu_model_get_input:
 * @model: a model
 * @index: input index
 * @spec: (out): its description
 *
 * Describes a public input of the model: what the caller provides for a
 * frame. Without a preamble these are the device inputs. With one, they
 * are the preamble's (f32) inputs, in order, followed by the device
 * inputs the preamble does not produce; simnpu_model_get_input_binding()
 * says which is which.
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_input (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_inputs)
    return SIMNPU_ENOENT;
  *spec = m->host.inputs[index];
  return 0;
}

/**
 * simnpu_model_get_output:
 * @model: a model
 * @index: output index
 * @spec: (out): its description
 *
 * Describes a public output of the model: without a postamble the device
 * outputs; with one, the postamble's outputs (f32, or u8 / i8 when the
 * model was compiled with quantised outputs), in order, followed by
 * the device outputs the postamble does not consume.
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_output (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_outputs)
    return SIMNPU_ENOENT;
  *spec = m->host.outputs[index];
  return 0;
}

/**
 * simnpu_model_get_device_input:
 * @model: a model
 * @index: device input index
 * @spec: (out): its description
 *
 * Describes an input of the device graph: the buffers simnpu_job_submit()
 * takes, in this order (%simnpu_model_info.n_device_inputs of them).
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_device_input (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->graph->n_inputs)
    return SIMNPU_ENOENT;
  *spec = m->in_specs[index];
  return 0;
}

/**
 * simnpu_model_get_device_output:
 * @model: a model
 * @index: device output index
 * @spec: (out): its description
 *
 * Describes an output of the device graph: the buffers simnpu_job_submit()
 * fills, in this order (%simnpu_model_info.n_device_outputs of them).
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_device_output (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->graph->n_outputs)
    return SIMNPU_ENOENT;
  *spec = m->out_specs[index];
  return 0;
}

/**
 * simnpu_model_get_input_binding:
 * @model: a model
 * @index: public input index
 * @binding: (out): %SIMNPU_SECTION_PREAMBLE and the preamble input it
 *   feeds, or %SIMNPU_SECTION_DEVICE and the device input it is passed to
 *   as is
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_input_binding (simnpu_model * m, unsigned index,
    simnpu_binding * binding)
{
  if (m == NULL || binding == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_inputs)
    return SIMNPU_ENOENT;
  *binding = m->host.in_bind[index];
  return 0;
}

/**
 * simnpu_model_get_output_binding:
 * @model: a model
 * @index: public output index
 * @binding: (out): %SIMNPU_SECTION_POSTAMBLE and the postamble output it
 *   is, or %SIMNPU_SECTION_DEVICE and the device output it is as is
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_output_binding (simnpu_model * m, unsigned index,
    simnpu_binding * binding)
{
  if (m == NULL || binding == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_outputs)
    return SIMNPU_ENOENT;
  *binding = m->host.out_bind[index];
  return 0;
}

/**
 * simnpu_model_get_host_section:
 * @model: a model
 * @kind: %SIMNPU_SECTION_PREAMBLE or %SIMNPU_SECTION_POSTAMBLE
 *
 * A frame of a model with host sections goes: the public inputs through
 * simnpu_host_section_run() of the preamble into device inputs,
 * simnpu_job_submit() with the device inputs, then on completion the
 * device outputs through the postamble's run into public outputs. The
 * sections run on the caller's thread, so the caller can time them.
 *
 * Returns: (transfer none) (nullable): the section, valid while the model
 *   is loaded, or NULL if the model has none of that kind
 */
simnpu_host_section *
simnpu_model_get_host_section (simnpu_model * m, simnpu_section_kind kind)
{
  if (m == NULL || (kind != SIMNPU_SECTION_PREAMBLE
          && kind != SIMNPU_SECTION_POSTAMBLE))
    return NULL;
  return m->host.sections[kind];
}

/**
 * simnpu_model_get_preprocess:
 * @model: a model
 * @preprocess: (out): how pixels become the model's input
 *
 * Returns: 0, %SIMNPU_EINVAL, or %SIMNPU_ENOENT if the model does not say
 *   (containers before 1.2, or compiled without preprocessing)
 */
G_STATIC_ASSERT ((int) SIMNPU_COLOR_RGB == (int) SIMNPU_PREPROCESS_RGB);
G_STATIC_ASSERT ((int) SIMNPU_COLOR_BGR == (int) SIMNPU_PREPROCESS_BGR);
G_STATIC_ASSERT ((int) SIMNPU_COLOR_GRAY == (int) SIMNPU_PREPROCESS_GRAY);
G_STATIC_ASSERT ((int) SIMNPU_RESIZE_LETTERBOX ==
    (int) SIMNPU_PREPROCESS_LETTERBOX);
G_STATIC_ASSERT ((int) SIMNPU_RESIZE_STRETCH ==
    (int) SIMNPU_PREPROCESS_STRETCH);

int
simnpu_model_get_preprocess (simnpu_model * m, simnpu_preprocess * pp)
{
  const simnpu__preprocess *p;
  unsigned c;

  if (m == NULL || pp == NULL)
    return SIMNPU_EINVAL;
  if (!m->graph->has_preprocess)
    return SIMNPU_ENOENT;
  p = &m->graph->preprocess;
  pp->color = (simnpu_color_order) p->color;
  pp->resize = (simnpu_resize_kind) p->resize;
  pp->fill = p->fill;
  pp->scale = p->scale;
  pp->layout = p->layout;
  for (c = 0; c < G_N_ELEMENTS (p->mean); c++) {
    pp->mean[c] = p->mean[c];
    pp->std[c] = p->std[c];
  }
  return 0;
}

/**
 * simnpu_model_get_decoder_json:
 * @model: a model
 *
 * The decoder the model's outputs are meant for and its parameters, as
 * compiled: a JSON object such as `{"type": "ssd", ...}`, validated at
 * load.
 *
 * Returns: (nullable): the JSON text, valid while the model is loaded, or
 *   NULL if the model carries none
 */
const char *
simnpu_model_get_decoder_json (simnpu_model * m)
{
  return m ? m->graph->decoder : NULL;
}

/**
 * simnpu_model_get_device_ns:
 * @model: a model
 *
 * Returns: the modelled device time of one job on an idle device, in
 *   device ns (time scale 1.0)
 */
uint64_t
simnpu_model_get_device_ns (simnpu_model * m)
{
  return m ? m->schedule.device_ns : 0;
}

/* appends to buf[len..size) as snprintf does (cut to fit, NUL-ended) and
 * returns the whole text's length */
static size_t append_text (char *buf, size_t size, size_t len,
    const char *fmt, ...) __attribute__((format (printf, 4, 5)));

static size_t
append_text (char *buf, size_t size, size_t len, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (len < size ? buf + len : NULL, len < size ? size - len : 0,
      fmt, ap);
  va_end (ap);
  return len + (size_t) MAX (n, 0);
}

/**
 * simnpu_model_get_job_resources:
 * @model: a model
 * @buf: (nullable): where the text goes, or NULL to ask for its length
 * @size: bytes at @buf
 *
 * What one job of @model asks of its device's resources at time scale
 * 1.0, for whoever models the device's resources (a profiler's projection
 * onto the modelled device): the job's actions in schedule order, each
 * NAME=NS ("core" is the core (slice) the job is placed on, the other
 * resources by their device info's names) with "@I" or "@I+J" for the
 * earlier actions (by their place in the list) it waits for, e.g.
 * "core=120000,dma=96000@0,core=35524@1,dma=40000@2". Without a command
 * processor (CSS) the driver's setup of each job comes first, on its
 * core (the profile's job_overhead_ns), and every action waits for it.
 * The text is cut to fit @size with its NUL, as snprintf() does.
 *
 * Returns: the text's length without its NUL (@size must be larger to
 *   take all of it), or -1 without a model
 */
int
simnpu_model_get_job_resources (simnpu_model * m, char *buf, size_t size)
{
  simnpu_device_info info;
  size_t len = 0;
  int setup = 0;
  unsigned i;

  if (m == NULL || simnpu_device_get_info (m->dev, &info) != 0)
    return -1;
  if (buf != NULL && size > 0)
    buf[0] = '\0';
  for (i = 0; i < info.n_resources; i++)
    if (info.resources[i].kind == SIMNPU_RESOURCE_CSS)
      break;
  if (i == info.n_resources) {
    len = append_text (buf, size, len, "core=%" PRIu64,
        (uint64_t) info.job_overhead_ns);
    setup = 1;
  }
  for (i = 0; i < m->schedule.n_actions; i++) {
    const int resource = m->schedule.actions[i].resource;
    const int dep = m->schedule.actions[i].dep;
    const int dep2 = m->schedule.actions[i].dep2;

    len = append_text (buf, size, len, "%s%s=%" PRIu64, len ? "," : "",
        resource < 0 || (unsigned) resource >= info.n_resources ? "core" :
        info.resources[resource].name,
        (uint64_t) m->schedule.actions[i].device_ns);
    if (dep >= 0)
      len = append_text (buf, size, len, "@%d", dep + setup);
    else if (setup)
      len = append_text (buf, size, len, "@0");
    if (dep2 >= 0)
      len = append_text (buf, size, len, "%s%d", dep >= 0 || setup ? "+" :
          "@", dep2 + setup);
  }
  return (int) MIN (len, (size_t) INT_MAX);
}

/**
 * simnpu_model_get_latency_ns:
 * @model: a model
 *
 * What a GStreamer element reports as its latency: the modelled device
 * time of one job, in wall ns at the device's current time scale.
 *
 * Returns: the latency in ns
 */
uint64_t
simnpu_model_get_latency_ns (simnpu_model * m)
{
  double scale;

  if (m == NULL)
    return 0;
  scale = simnpu_device_get_time_scale (m->dev);
  return (uint64_t) ((double) m->schedule.device_ns * scale);
}
