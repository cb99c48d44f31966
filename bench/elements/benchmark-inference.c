/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Throughput of axinference against the device's real ceiling, for a
 * model whose device time dominates the host work. The ceiling is the
 * minimum over the device's resources of (resources of that kind / busy
 * time per job on it), from the model's schedule: one job is run on an
 * idle device and its per-resource busy counters read. The cores count
 * together (a job goes to any core); every other resource (the shared
 * DMA engine on metis) alone. The naive bound n_cores / device time per
 * frame is printed too: it ignores the shared DMA engine, on which a
 * model with large inputs and outputs is limited.
 * Frames with a ready-made input tensor are pushed through a GstHarness
 * at in-flight=4 on metis; the steady-state rate (after a warm-up) is
 * compared with the bound computed from the same model loaded on the same
 * device profile. Also prints the in-flight=1 rate as a second baseline.
 *
 * A model whose modelled device time is shorter than DEVICE_DOMINATES_NS
 * is paced with time-scale = DEVICE_DOMINATES_NS / device time, which
 * stretches device time and leaves host work (copies, kernels on the
 * host, the element) unchanged: the device then dominates, as the check
 * requires. Both bounds use the scaled device time. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/ax/ax.h>
#include <simnpu/simnpu.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_MODEL "ball-detector"
#define DEVICE "metis"
#define WARMUP_FRAMES 16
#define MEASURED_FRAMES 160
#define TARGET_RATIO 0.90
/* inputs or outputs of the one ceiling job */
#define MAX_TENSORS 16
#define DEVICE_DOMINATES_NS 10000000.0
#define FRAME_CAPS "video/x-raw,format=RGB,width=640,height=480,framerate=30/1"

static gchar *
find_model (const gchar * name)
{
  const gchar *env = g_getenv ("GST_AX_MODEL_PATH");
  gchar *file = g_strconcat (name, ".axm", NULL);
  gchar *path = g_build_filename (env ? env : GST_AX_BUILD_MODELS_DIR, file,
      NULL);

  g_free (file);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_free (path);
    path = g_strconcat (GST_AX_BUILD_MODELS_DIR "/", name, ".axm", NULL);
  }
  return path;
}

static GstBuffer *
make_frame (const GstAxModelInput * in)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 16, NULL);
  gsize n = (gsize) in->width * in->height * in->channels *
      gst_ax_tensor_dtype_size (in->dtype);
  GstBuffer *data = gst_buffer_new_allocate (NULL, n, NULL);
  gint64 dims[4] = { 1, in->height, in->width, in->channels };
  GstAxTensorMeta *m;

  if (in->layout == GST_AX_TENSOR_LAYOUT_NCHW) {
    dims[1] = in->channels;
    dims[2] = in->height;
    dims[3] = in->width;
  }
  gst_buffer_memset (data, 0, 0x5a, n);
  m = gst_buffer_add_ax_tensor_meta (frame, in->name,
      GST_AX_TENSOR_ROLE_INPUT, in->dtype, in->layout, 4, dims, in->scale,
      in->zero_point, data);
  m->has_letterbox = gst_ax_letterbox_geometry_init (&m->letterbox, 640, 480,
      in->width, in->height, TRUE, TRUE, GST_AX_LETTERBOX_DEFAULT_FILL);
  return frame;
}

typedef struct
{
  GMutex lock;
  gboolean measuring;
  guint64 busy_ns;
  guint64 jobs;
} DeviceUse;

static DeviceUse use;

static void
on_device_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  g_mutex_lock (&use.lock);
  if (use.measuring) {
    use.busy_ns += ev->end_ns - ev->start_ns;
    use.jobs++;
  }
  g_mutex_unlock (&use.lock);
}

static void
measure (gboolean on)
{
  g_mutex_lock (&use.lock);
  use.measuring = on;
  if (on) {
    use.busy_ns = 0;
    use.jobs = 0;
  }
  g_mutex_unlock (&use.lock);
}

/* frames per second in steady state; *busy_ms gets the mean device busy
 * interval per job, as the device reported it */
static gdouble
run (const gchar * model, guint in_flight, gdouble time_scale,
    gdouble * busy_ms)
{
  gchar *launch = g_strdup_printf ("axinference model=%s device=" DEVICE
      " in-flight=%u time-scale=%.6f", model, in_flight, time_scale);
  GstHarness *h = gst_harness_new_parse (launch);
  GstQuery *q = gst_ax_model_query_new ();
  GstAxModelInput in;
  GstBuffer *frame;
  gint64 t0 = 0, t1;
  guint i, pulled = 0;

  g_free (launch);
  gst_harness_set_src_caps_str (h, FRAME_CAPS);
  if (!gst_pad_peer_query (h->srcpad, q)
      || !gst_ax_model_query_parse_input (q, &in)) {
    g_printerr ("model %s does not answer the model query\n", model);
    exit (1);
  }
  gst_query_unref (q);
  frame = make_frame (&in);

  /* pushing blocks while the window is full; pull as we go so that the
   * harness queue stays short */
  for (i = 0; i < WARMUP_FRAMES + MEASURED_FRAMES; i++) {
    gst_harness_push (h, gst_buffer_copy (frame));
    while (gst_harness_buffers_in_queue (h) > 0) {
      gst_buffer_unref (gst_harness_pull (h));
      if (++pulled == WARMUP_FRAMES) {
        t0 = g_get_monotonic_time ();
        measure (TRUE);
      }
    }
  }
  while (pulled < WARMUP_FRAMES + MEASURED_FRAMES) {
    gst_buffer_unref (gst_harness_pull (h));
    if (++pulled == WARMUP_FRAMES) {
      t0 = g_get_monotonic_time ();
      measure (TRUE);
    }
  }
  t1 = g_get_monotonic_time ();
  measure (FALSE);
  *busy_ms = use.jobs ? use.busy_ns / 1e6 / use.jobs : 0;
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
  return MEASURED_FRAMES / ((t1 - t0) / 1e6);
}

/* Jobs per second of modelled device time that the device can sustain
 * with this model, limited by its busiest resource; *limit gets a copy of
 * that resource's name (the device's strings die with it). Returns 0 on
 * error. */
static gdouble
device_ceiling (simnpu_device * dev, simnpu_model * net,
    const simnpu_device_info * di, gchar ** limit)
{
  simnpu_tensor_spec spec;
  simnpu_input_buffer in[MAX_TENSORS];
  simnpu_output_buffer out[MAX_TENSORS];
  simnpu_model_info mi;
  simnpu_counters c;
  simnpu_job_result res;
  simnpu_job *job;
  simnpu_error err;
  gdouble ceiling = 0, per_s;
  guint64 core_ns = 0;
  guint i;

  simnpu_model_get_info (net, &mi);
  if (mi.n_inputs > MAX_TENSORS || mi.n_outputs > MAX_TENSORS)
    return 0;
  for (i = 0; i < mi.n_inputs; i++) {
    simnpu_model_get_input (net, i, &spec);
    in[i].size_bytes = spec.size_bytes;
    in[i].data = g_malloc0 (spec.size_bytes);
  }
  for (i = 0; i < mi.n_outputs; i++) {
    simnpu_model_get_output (net, i, &spec);
    out[i].size_bytes = spec.size_bytes;
    out[i].data = g_malloc (spec.size_bytes);
  }
  simnpu_device_set_time_scale (dev, 0.0);
  if (simnpu_job_submit (net, in, mi.n_inputs, out, mi.n_outputs, NULL,
          NULL, &job, &err) == 0) {
    simnpu_job_wait (job, -1, &res);
    simnpu_job_free (job);
    simnpu_device_get_counters (dev, &c);
    for (i = 0; i < c.n_resources && i < di->n_cores; i++)
      core_ns += c.resource_device_ns[i];
    if (core_ns > 0) {
      ceiling = di->n_cores / (core_ns / 1e9);
      g_free (*limit);
      *limit = g_strdup ("cores");
    }
    for (i = di->n_cores; i < c.n_resources; i++) {
      if (c.resource_device_ns[i] == 0)
        continue;
      per_s = 1.0 / (c.resource_device_ns[i] / 1e9);
      if (ceiling == 0 || per_s < ceiling) {
        ceiling = per_s;
        g_free (*limit);
        *limit = g_strdup (di->resources[i].name);
      }
    }
  } else {
    g_printerr ("ceiling job: %s\n", err.message);
  }
  for (i = 0; i < mi.n_inputs; i++)
    g_free ((gpointer) in[i].data);
  for (i = 0; i < mi.n_outputs; i++)
    g_free (out[i].data);
  return ceiling;
}

int
main (int argc, char **argv)
{
  const gchar *model = argc > 1 ? argv[1] : DEFAULT_MODEL;
  gchar *path = find_model (model);
  simnpu_device *dev;
  simnpu_model *net;
  simnpu_device_info di;
  simnpu_model_info mi;
  simnpu_error err;
  static const GstAxProbeSinkFuncs funcs = { NULL, on_device_event, NULL };
  gdouble bound, ceiling, fps4, fps1, scale, busy1, busy4;
  gchar *limit = NULL;

  gst_init (&argc, &argv);
  if (simnpu_device_open (DEVICE, &dev, &err) < 0
      || simnpu_model_load (dev, path, &net, &err) < 0) {
    g_printerr ("cannot load %s on %s: %s\n", path, DEVICE, err.message);
    return 1;
  }
  simnpu_device_get_info (dev, &di);
  simnpu_model_get_info (net, &mi);
  scale = MAX (1.0, DEVICE_DOMINATES_NS / mi.device_ns);
  bound = di.n_cores / (mi.device_ns * scale / 1e9);
  ceiling = device_ceiling (dev, net, &di, &limit) / scale;
  if (ceiling <= 0) {
    g_printerr ("cannot measure the device ceiling of %s\n", model);
    return 1;
  }
  simnpu_model_unload (net);
  simnpu_device_close (dev);

  g_mutex_init (&use.lock);
  gst_ax_probe_add_sink (&funcs, NULL);
  fps1 = run (model, 1, scale, &busy1);
  fps4 = run (model, 4, scale, &busy4);
  printf ("inference %s on %s: device time %.3f ms/frame at time-scale 1, "
      "run at time-scale %.2f = %.3f ms/frame; %u cores\n", model, DEVICE,
      mi.device_ns / 1e6, scale, mi.device_ns * scale / 1e6, di.n_cores);
  printf ("device ceiling %.1f fps (limited by %s, from the per-resource "
      "busy time of one job); naive bound cores / device time %.1f fps\n",
      ceiling, limit, bound);
  printf ("inference in-flight=1: %.1f fps (%.2f of the ceiling); device "
      "busy %.3f ms per job\n", fps1, fps1 / ceiling, busy1);
  printf ("inference in-flight=4: %.1f fps = %.3f of the device ceiling "
      "(target >= %.2f), %.3f of the naive bound; %.2fx in-flight=1; "
      "device busy %.3f ms per job\n", fps4, fps4 / ceiling, TARGET_RATIO,
      fps4 / bound, fps4 / fps1, busy4);
  g_free (limit);
  g_free (path);
  return 0;
}
