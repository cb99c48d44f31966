/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-axinference
 * @title: axinference
 *
 * Runs a compiled model (`.axm`) on the simulated NPU (libsimnpu) for each
 * input #GstAxTensorMeta on a frame, as attached by axletterbox, and
 * attaches the model's outputs to the frame as #GstAxTensorMeta of role
 * output (same instance as the input, index = output number, letterbox
 * copied from the input). The frame itself is not changed.
 *
 * Jobs are submitted without waiting: up to #GstAxInference:in-flight jobs
 * are outstanding on the device while a separate streaming thread pushes
 * the frames downstream in input order as their jobs complete. When the
 * window is full the upstream thread blocks (back-pressure). A flush
 * cancels the outstanding jobs; EOS is pushed after the last frame.
 * Frames without an input tensor pass through unchanged (with a warning the
 * first time).
 *
 * The element answers the custom model query (see
 * gst_ax_model_query_new()) on both pads with the model's input spec and
 * class labels, so an axletterbox upstream needs no properties and an
 * axnms downstream labels its detections with the model's class names. It
 * adds the model's device latency to LATENCY queries.
 *
 * With a profiler active (e.g. `GST_TRACERS=axprof`) it reports, in the
 * group named by #GstAxInference:model-name, the stages "host copy in",
 * "device wait" (flagged as a device wait) and "host copy out" of every
 * frame, one device event per job, and the device's counters.
 *
 * A compiled model may carry host sections: a float preamble, run in the
 * chain function on the frame's input tensor before the job is submitted
 * (the model's input is then f32, and the model query says so), and a
 * float postamble, run on the job's device outputs before the frame is
 * pushed (the output tensors are then its outputs). Each is reported as a
 * stage of the model's group, "preamble" and "postamble".
 *
 * Every axinference of a pipeline with the same #GstAxInference:device
 * string and #GstAxInference:device-id uses one simulated device: their
 * jobs are scheduled on the same cores, in submission order, and the
 * report shows the device once with each model's share of its busy time.
 * The device travels in a #GstContext of type "ax.device" (a context
 * query along the links, then a need-context message to the bin and the
 * application; the element that opens the device posts it with a
 * have-context message). An application shares a device across pipelines
 * by setting that context on the others before they start, e.g. the one
 * gst_element_get_context() returns on the first pipeline once it is
 * READY. Another device-id asks for a chip of its own. The device's
 * time scale is shared by its users: the last one set applies.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=100 ! axletterbox ! \
 *   axinference model=ball-detector in-flight=4 ! axnms ! fakesink
 * ]|
 * Two models on one device:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! tee name=t \
 *   t. ! queue ! axletterbox ! axinference model=ball-detector ! fakesink \
 *   t. ! queue ! axletterbox ! axinference model=ball-detector \
 *     model-name=second ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxinference-private.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_ax_inference_debug);
#define GST_CAT_DEFAULT gst_ax_inference_debug

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_DEVICE,
  PROP_IN_FLIGHT,
  PROP_TIME_SCALE,
  PROP_PROFILE_HOST,
  PROP_MODEL_NAME,
  PROP_DEVICE_ID,
  PROP_DEVICE_HANDLE,
  PROP_JOB_RESOURCES,
};

G_DEFINE_TYPE (GstAxInference, gst_ax_inference, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axinference, "axinference",
    GST_RANK_NONE, GST_TYPE_AX_INFERENCE,
    GST_DEBUG_CATEGORY_INIT (gst_ax_inference_debug, "axinference", 0,
        "inference on the simulated NPU"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

static void gst_ax_inference_finalize (GObject * object);
static void gst_ax_inference_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ax_inference_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstStateChangeReturn gst_ax_inference_change_state (GstElement *
    element, GstStateChange transition);
static void gst_ax_inference_set_context (GstElement * element,
    GstContext * context);
static GstFlowReturn gst_ax_inference_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf);
static gboolean gst_ax_inference_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static gboolean gst_ax_inference_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query);
static gboolean gst_ax_inference_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);
static gboolean gst_ax_inference_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static void gst_ax_inference_loop (GstAxInference * self);

static void
gst_ax_inference_class_init (GstAxInferenceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_ax_inference_finalize;
  gobject_class->set_property = gst_ax_inference_set_property;
  gobject_class->get_property = gst_ax_inference_get_property;

  /* model, device, in-flight, profile-host, model-name and device-id are
   * read when the device opens (NULL to READY): changeable in NULL only */
  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Compiled model: a path to an .axm file, or a name looked up as "
          "NAME.axm in $" MODEL_PATH_ENV " (colon-separated), then in the "
          "build's models directory (uninstalled builds only), then in the "
          "installed models directory",
          DEFAULT_PROP_MODEL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "Simulated device profile, e.g. \"metis\", \"torq\" or "
          "\"metis:cores=2\"; elements with the same device string and "
          "device-id share one device", DEFAULT_PROP_DEVICE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "In flight",
          "Maximum number of jobs outstanding on the device (0 = 2 x the "
          "device's cores)", 0, MAX_IN_FLIGHT, DEFAULT_PROP_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_TIME_SCALE,
      g_param_spec_double ("time-scale", "Time scale",
          "Pacing of device time in wall time: 1.0 = real time, 2.0 = twice "
          "as slow, 0 = as fast as the host computes", 0.0, MAX_TIME_SCALE,
          DEFAULT_PROP_TIME_SCALE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_PROFILE_HOST,
      g_param_spec_string ("profile-host", "Host profile",
          "Write the device's runtime profile CSV (dispatch_name, "
          "invocation_id, action_id, timestamp_us, event) to this path",
          DEFAULT_PROP_PROFILE_HOST,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MODEL_NAME,
      g_param_spec_string ("model-name", "Model name",
          "Name of the model's group in profiler reports (default: the "
          "model file name without .axm); a model that runs on the ROIs of "
          "another is shown under it, as DETECTOR/NAME",
          DEFAULT_PROP_MODEL_NAME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  /**
   * GstAxInference:device-id:
   *
   * Elements of a pipeline with the same #GstAxInference:device string and
   * the same device-id share one simulated device (the "ax.device"
   * GstContext): their jobs contend for the same cores. A different
   * device-id asks for a chip of its own.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_uint ("device-id", "Device id",
          "Which chip of the device string: elements with the same device "
          "string and device-id share one simulated device (through the "
          "\"" GST_AX_DEVICE_CONTEXT_TYPE "\" GstContext, which an "
          "application can also set to share it across pipelines); another "
          "device-id opens a separate one", 0, MAX_DEVICE_ID,
          DEFAULT_PROP_DEVICE_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstAxInference:device-handle:
   *
   * Identifies the simulated device the element uses while it is READY or
   * above: elements that share a device read the same handle.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_HANDLE,
      g_param_spec_uint64 ("device-handle", "Device handle",
          "Identity of the simulated device in use, the same for every "
          "element that shares it (0 in NULL)", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstAxInference:job-resources:
   *
   * What one job of the loaded model asks of the device's resources at
   * time scale 1.0, in ns: "core=N" (the core or slice a job is placed
   * on) then each other resource it uses, by name, e.g.
   * "core=170000,dma=120000". The axprof tracer's projection onto the
   * modelled device schedules jobs on them. %NULL without a model.
   */
  g_object_class_install_property (gobject_class, PROP_JOB_RESOURCES,
      g_param_spec_string ("job-resources", "Job resources",
          "Modelled time one job of the loaded model takes on each device "
          "resource at time scale 1.0, in ns: core=N then each other "
          "resource by name (NULL without a model)", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Inference on the simulated NPU", "Filter/Analyzer/Video",
      "Runs a compiled model on each frame's input tensor, asynchronously "
      "with several frames in flight, and attaches its output tensors",
      "gst-ax developers");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_ax_inference_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_ax_inference_set_context);
}

static void
gst_ax_inference_init (GstAxInference * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_ax_inference_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_ax_inference_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_ax_inference_sink_query));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_ax_inference_src_query));
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_ax_inference_src_event));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->model = g_strdup (DEFAULT_PROP_MODEL);
  self->device = g_strdup (DEFAULT_PROP_DEVICE);
  self->in_flight = DEFAULT_PROP_IN_FLIGHT;
  self->time_scale = DEFAULT_PROP_TIME_SCALE;
  self->profile_host = g_strdup (DEFAULT_PROP_PROFILE_HOST);
  self->model_name = g_strdup (DEFAULT_PROP_MODEL_NAME);
  self->device_id = DEFAULT_PROP_DEVICE_ID;

  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  g_queue_init (&self->free_items);
  self->flushing = TRUE;
  self->srcresult = GST_FLOW_FLUSHING;
}

static void
item_free (Item * item)
{
  guint i;

  for (i = 0; i < item->jobs_size; i++) {
    g_free (item->jobs[i].outs);
    g_free (item->jobs[i].maps);
    g_free (item->jobs[i].scratch);
  }
  g_free (item->jobs);
  g_free (item);
}

static void
gst_ax_inference_finalize (GObject * object)
{
  GstAxInference *self = GST_AX_INFERENCE (object);
  GList *l;

  while ((l = g_queue_pop_head_link (&self->free_items)))
    item_free (l->data);
  g_free (self->model);
  g_free (self->device);
  g_free (self->profile_host);
  g_free (self->model_name);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (gst_ax_inference_parent_class)->finalize (object);
}

static void
gst_ax_inference_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxInference *self = GST_AX_INFERENCE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_free (self->model);
      self->model = g_value_dup_string (value);
      break;
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      break;
    case PROP_IN_FLIGHT:
      self->in_flight = g_value_get_uint (value);
      break;
    case PROP_TIME_SCALE:
      self->time_scale = g_value_get_double (value);
      if (self->dev)
        simnpu_device_set_time_scale (self->dev, self->time_scale);
      break;
    case PROP_PROFILE_HOST:
      g_free (self->profile_host);
      self->profile_host = g_value_dup_string (value);
      break;
    case PROP_MODEL_NAME:
      g_free (self->model_name);
      self->model_name = g_value_dup_string (value);
      break;
    case PROP_DEVICE_ID:
      self->device_id = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* What one job asks of the device's resources at time scale 1.0
 * (simnpu_model_get_job_resources()); NULL without a model. Object lock
 * held. */
static gchar *
job_resources (GstAxInference * self)
{
  gint n = simnpu_model_get_job_resources (self->net, NULL, 0);
  gchar *s;

  if (n < 0)
    return NULL;
  s = g_malloc ((gsize) n + 1);
  simnpu_model_get_job_resources (self->net, s, (gsize) n + 1);
  return s;
}

static void
gst_ax_inference_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAxInference *self = GST_AX_INFERENCE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, self->in_flight);
      break;
    case PROP_TIME_SCALE:
      g_value_set_double (value, self->time_scale);
      break;
    case PROP_PROFILE_HOST:
      g_value_set_string (value, self->profile_host);
      break;
    case PROP_MODEL_NAME:
      if (self->model_name)
        g_value_set_string (value, self->model_name);
      else
        g_value_set_string (value, self->group);
      break;
    case PROP_DEVICE_ID:
      g_value_set_uint (value, self->device_id);
      break;
    case PROP_DEVICE_HANDLE:
      g_value_set_uint64 (value, self->shared ? self->shared->handle : 0);
      break;
    case PROP_JOB_RESOURCES:
      g_value_take_string (value, job_resources (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gchar *
format_dims (guint n_dims, const gint64 * dims)
{
  GString *s = g_string_new ("[");
  guint i;

  for (i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
report_device (GstAxInference * self)
{
  GstAxProbeDevice d;
  simnpu_counters c;

  if (!gst_ax_probe_is_active () || self->dev == NULL)
    return;
  if (simnpu_device_get_counters (self->dev, &c) < 0)
    return;
  d.element = GST_ELEMENT (self);
  d.group = self->group;
  d.device = self->device_spec;
  d.n_cores = self->dev_info.n_cores;
  d.in_flight_window = self->window;
  g_mutex_lock (&self->lock);
  d.jobs_done = self->jobs_done;
  d.lag_ns = self->lag_ns;
  g_mutex_unlock (&self->lock);
  /* the simulator's threads are the device's, whoever else uses it */
  d.sim_cpu_ns = c.sim_cpu_ns;
  d.in_window_ns = self->window_frame_ns;
  d.held_in_window_ns = self->window_held_ns;
  d.window_span_ns = self->window_last_ns - self->window_first_ns;
  d.device_id = self->shared->device_id;
  d.device_handle = self->shared->handle;
  gst_ax_probe_device (&d);
}

/* ------------------------------------------------------------------ */
/* Items                                                                */

/* Called with the lock. */
static Item *
item_get (GstAxInference * self, guint n_jobs)
{
  GList *l = g_queue_pop_head_link (&self->free_items);
  Item *item;
  guint i;

  if (l) {
    item = l->data;
  } else {
    item = g_new0 (Item, 1);
    item->link.data = item;
  }
  if (item->n_outputs != self->n_outputs
      || item->scratch_bytes != self->scratch_bytes) {
    for (i = 0; i < item->jobs_size; i++) {
      g_free (item->jobs[i].outs);
      g_free (item->jobs[i].maps);
      g_free (item->jobs[i].scratch);
    }
    g_free (item->jobs);
    item->jobs = NULL;
    item->jobs_size = 0;
    item->n_outputs = self->n_outputs;
    item->scratch_bytes = self->scratch_bytes;
  }
  if (item->jobs_size < n_jobs) {
    item->jobs = g_renew (Job, item->jobs, n_jobs);
    for (i = item->jobs_size; i < n_jobs; i++) {
      item->jobs[i].outs = g_new0 (GstBuffer *, MAX (item->n_outputs, 1));
      item->jobs[i].maps = g_new0 (GstMapInfo, MAX (item->n_outputs, 1));
      item->jobs[i].scratch = item->scratch_bytes ?
          g_malloc0 (item->scratch_bytes) : NULL;
    }
    item->jobs_size = n_jobs;
  }
  item->n_jobs = 0;
  item->n_done = 0;
  item->frame = NULL;
  item->event = NULL;
  item->reported = FALSE;
  return item;
}

/* Releases what a frame item holds. The item's jobs must have completed
 * (their callbacks have run) or never been submitted. */
static void
item_clear (GstAxInference * self, Item * item)
{
  guint i, o;

  for (i = 0; i < item->n_jobs; i++) {
    Job *job = &item->jobs[i];

    for (o = 0; o < item->n_outputs; o++) {
      if (job->outs[o] == NULL)
        continue;
      if (job->maps[o].memory != NULL)
        gst_buffer_unmap (job->outs[o], &job->maps[o]);
      gst_buffer_unref (job->outs[o]);
      job->outs[o] = NULL;
    }
    if (job->job) {
      simnpu_job_free (job->job);
      job->job = NULL;
    }
  }
  item->n_jobs = 0;
  gst_clear_buffer (&item->frame);
  gst_clear_event (&item->event);
}

/* Called with the lock. */
static void
item_recycle (GstAxInference * self, Item * item)
{
  g_queue_push_tail_link (&self->free_items, &item->link);
}

static void
job_done_cb (simnpu_job * sjob, const simnpu_job_result * result,
    void *user_data)
{
  Job *job = user_data;
  GstAxInference *self = job->self;
  guint64 now_ns = job->item->enter_ns ? gst_ax_probe_now_ns () : 0;

  g_mutex_lock (&self->lock);
  job->result = *result;
  job->done = TRUE;
  if (result->status == SIMNPU_OK) {
    self->jobs_done++;
    self->lag_ns += result->lag_ns;
  }
  if (++job->item->n_done == job->item->n_jobs)
    job->item->done_ns = now_ns;
  self->n_running--;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* Cancels every outstanding job of the queued items. Called without the
 * lock: a cancel may run the job's callback on this thread. */
static void
cancel_all (GstAxInference * self)
{
  GPtrArray *jobs = g_ptr_array_new ();
  GList *l;
  guint i;

  g_mutex_lock (&self->lock);
  for (l = self->queue.head; l; l = l->next) {
    Item *item = l->data;

    for (i = 0; i < item->n_jobs; i++)
      if (item->jobs[i].job && !item->jobs[i].done)
        g_ptr_array_add (jobs, item->jobs[i].job);
  }
  g_mutex_unlock (&self->lock);

  /* the items cannot go away: only flush-stop, stop and the task free
   * them, and the task is paused and the others wait for the callbacks */
  for (i = 0; i < jobs->len; i++)
    simnpu_job_cancel (g_ptr_array_index (jobs, i));
  g_ptr_array_unref (jobs);
}

/* Waits for every queued job's callback, then empties the queue. Called
 * with the task stopped or paused and the chain function not running.
 * Sticky events still queued (stream-start, caps, tags, but not segment
 * or EOS, which a flush resets) are handed back through @sticky, when
 * given, so that they can be stored on the source pad once it accepts
 * them again: data after a flush must still follow its stream-start and
 * caps, as GstQueue does. */
static void
drain_and_clear (GstAxInference * self, GQueue * sticky)
{
  GList *l;

  g_mutex_lock (&self->lock);
  for (l = self->queue.head; l; l = l->next) {
    Item *item = l->data;

    while (item->n_done < item->n_jobs)
      g_cond_wait (&self->cond, &self->lock);
  }
  while ((l = g_queue_pop_head_link (&self->queue))) {
    Item *item = l->data;

    g_mutex_unlock (&self->lock);
    if (sticky != NULL && item->event != NULL
        && GST_EVENT_IS_STICKY (item->event)
        && GST_EVENT_TYPE (item->event) != GST_EVENT_SEGMENT
        && GST_EVENT_TYPE (item->event) != GST_EVENT_EOS)
      g_queue_push_tail (sticky, gst_event_ref (item->event));
    item_clear (self, item);
    g_mutex_lock (&self->lock);
    item_recycle (self, item);
  }
  self->n_outstanding = 0;
  g_mutex_unlock (&self->lock);
}

static void
enqueue_event (GstAxInference * self, GstEvent * event)
{
  Item *item = g_new0 (Item, 1);

  item->link.data = item;
  item->event = event;
  g_mutex_lock (&self->lock);
  g_queue_push_tail_link (&self->queue, &item->link);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* ------------------------------------------------------------------ */
/* Upstream side                                                        */

static gboolean
tensor_matches (const GstAxTensorMeta * m, const simnpu_tensor_spec * spec)
{
  guint i;

  if (m->dtype != gst_ax_tensor_dtype_from_simnpu (spec->dtype)
      || m->n_dims != spec->n_dims)
    return FALSE;
  if (spec->n_dims == SIMNPU_MAX_DIMS
      && m->layout != gst_ax_tensor_layout_from_simnpu (spec->layout))
    return FALSE;
  for (i = 0; i < spec->n_dims; i++)
    if (m->dims[i] != spec->dims[i])
      return FALSE;
  return gst_buffer_get_size (m->data) >= spec->size_bytes;
}

static GstFlowReturn
gst_ax_inference_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAxInference *self = GST_AX_INFERENCE (parent);
  GstAxTensorMeta *m, *bad = NULL;
  gpointer state = NULL;
  guint n_inputs = 0, i, o;
  Item *item;
  GstFlowReturn ret;
  simnpu_error err = { 0, "" };
  int rc = 0;

  while ((m = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_INPUT))) {
    if (m->index != 0)
      continue;
    if (!tensor_matches (m, &self->in_spec))
      bad = m;
    n_inputs++;
  }
  if (bad)
    goto tensor_mismatch;

  if (n_inputs == 0 && !self->warned_no_tensor) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Frame without an input tensor: passing it through."),
        ("expected a GstAxTensorMeta of role input, as made by "
            "axletterbox; frames without one are not inferred"));
    self->warned_no_tensor = TRUE;
  }

  /* back-pressure: wait for room in the window (an item with more jobs
   * than the window starts alone, and its jobs beyond the window wait for
   * its earlier ones below) and in the queue */
  g_mutex_lock (&self->lock);
  while (!self->flushing && ((self->n_outstanding > 0
              && self->n_outstanding + n_inputs > self->window)
          || self->queue.length >= QUEUED_ITEMS_PER_JOB * self->window))
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing || self->srcresult != GST_FLOW_OK) {
    ret = self->srcresult;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return ret;
  }
  item = item_get (self, n_inputs);
  g_mutex_unlock (&self->lock);
  /* the frame is inside the window from here to its push */
  item->enter_ns = n_inputs > 0 && gst_ax_probe_is_active ()?
      gst_ax_probe_now_ns () : 0;
  item->done_ns = 0;

  /* output metas are added by the streaming thread */
  item->frame = gst_buffer_make_writable (buf);
  state = NULL;
  while ((m = gst_buffer_iterate_ax_tensor_meta (item->frame, &state,
              GST_AX_TENSOR_ROLE_INPUT))) {
    Job *job;
    simnpu_input_buffer inv[MAX_OUTPUTS];
    simnpu_output_buffer outv[MAX_OUTPUTS];
    GstMapInfo in_map;
    GstAxProbeTimer timer;
    guint k;

    if (m->index != 0)
      continue;
    job = &item->jobs[item->n_jobs++];
    job->self = self;
    job->item = item;
    job->job = NULL;
    job->done = FALSE;
    job->instance = m->instance;
    job->has_letterbox = m->has_letterbox;
    job->letterbox = m->letterbox;
    job->roi_id = m->roi_id;
    for (o = 0; o < self->n_outputs; o++) {
      job->outs[o] = NULL;
      memset (&job->maps[o], 0, sizeof (GstMapInfo));
    }

    for (o = 0; o < self->n_outputs; o++) {
      if (gst_buffer_pool_acquire_buffer (self->pools[o], &job->outs[o],
              NULL) != GST_FLOW_OK)
        goto pool_failed;
      if (!gst_buffer_map (job->outs[o], &job->maps[o], GST_MAP_WRITE))
        goto map_failed;
    }
    for (k = 0; k < self->n_device_outputs; k++) {
      gint pub = self->dev_out_public[k];

      outv[k].data = pub != NOT_PUBLIC ? job->maps[pub].data :
          job->scratch + self->dev_out_offset[k];
      outv[k].size_bytes = self->dev_out_specs[k].size_bytes;
    }

    if (!gst_buffer_map (m->data, &in_map, GST_MAP_READ))
      goto map_failed;
    if (self->preamble) {
      const void *pre_in[1] = { in_map.data };
      void *pre_out[MAX_OUTPUTS];
      simnpu_tensor_spec spec;
      guint bound;

      for (k = 0; k < self->n_device_inputs; k++) {
        simnpu_host_section_get_output (self->preamble, k, &spec, &bound);
        pre_out[k] = self->dev_in_bufs[bound];
      }
      gst_ax_probe_timer_start (&timer);
      rc = simnpu_host_section_run (self->preamble, pre_in, pre_out, &err);
      gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->group,
          STAGE_PREAMBLE, GST_AX_PROBE_FLAG_STAGE);
      if (rc < 0) {
        gst_buffer_unmap (m->data, &in_map);
        goto preamble_failed;
      }
      for (k = 0; k < self->n_device_inputs; k++) {
        inv[k].data = self->dev_in_bufs[k];
        inv[k].size_bytes = self->dev_in_specs[k].size_bytes;
      }
    } else {
      inv[0].data = in_map.data;
      inv[0].size_bytes = self->in_spec.size_bytes;
    }
    /* a frame of more tensors than the window submits its jobs as the
     * earlier ones complete */
    g_mutex_lock (&self->lock);
    while (!self->flushing && self->n_running >= self->window)
      g_cond_wait (&self->cond, &self->lock);
    if (self->flushing) {
      g_mutex_unlock (&self->lock);
      gst_buffer_unmap (m->data, &in_map);
      goto flushing;
    }
    self->n_running++;
    g_mutex_unlock (&self->lock);
    gst_ax_probe_timer_start (&timer);
    rc = simnpu_job_submit (self->net, inv, self->n_device_inputs, outv,
        self->n_device_outputs, job_done_cb, job, &job->job, &err);
    gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->group,
        STAGE_HOST_COPY_IN, GST_AX_PROBE_FLAG_STAGE | GST_AX_PROBE_FLAG_SUBMIT);
    gst_buffer_unmap (m->data, &in_map);
    if (rc < 0) {
      g_mutex_lock (&self->lock);
      self->n_running--;
      g_mutex_unlock (&self->lock);
      goto submit_failed;
    }
  }

  g_mutex_lock (&self->lock);
  if (self->flushing) {
    g_mutex_unlock (&self->lock);
    goto flushing;
  }
  g_queue_push_tail_link (&self->queue, &item->link);
  self->n_outstanding += item->n_jobs;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;

  /* ERRORS */
tensor_mismatch:
  {
    gchar *got = format_dims (bad->n_dims, bad->dims);
    gchar *want = format_dims (self->in_spec.n_dims, self->in_spec.dims);

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input tensor does not match model \"%s\".", self->group),
        ("expected %s %s %s (%" G_GSIZE_FORMAT " bytes), got '%s' %s %s %s "
            "(%" G_GSIZE_FORMAT " bytes)",
            simnpu_dtype_to_string (self->in_spec.dtype),
            simnpu_layout_to_string (self->in_spec.layout), want,
            self->in_spec.size_bytes, bad->name,
            gst_ax_tensor_dtype_to_string (bad->dtype),
            bad->layout == GST_AX_TENSOR_LAYOUT_NCHW ? "nchw" : "nhwc", got,
            gst_buffer_get_size (bad->data)));
    g_free (got);
    g_free (want);
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
pool_failed:
  {
    ret = GST_FLOW_FLUSHING;
    goto release;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not map a tensor buffer."), (NULL));
    ret = GST_FLOW_ERROR;
    goto release;
  }
preamble_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The preamble of model \"%s\" failed.", self->group),
        ("%s: %s", simnpu_strerror (rc), err.message));
    ret = GST_FLOW_ERROR;
    goto release;
  }
submit_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The device refused a job of model \"%s\".", self->group),
        ("%s: %s", simnpu_strerror (rc), err.message));
    ret = GST_FLOW_ERROR;
    goto release;
  }
flushing:
  {
    ret = GST_FLOW_FLUSHING;
    goto release;
  }
release:
  {
    /* jobs already submitted must finish before their outputs go */
    for (i = 0; i < item->n_jobs; i++)
      if (item->jobs[i].job)
        simnpu_job_cancel (item->jobs[i].job);
    g_mutex_lock (&self->lock);
    for (i = 0; i < item->n_jobs; i++)
      while (item->jobs[i].job && !item->jobs[i].done)
        g_cond_wait (&self->cond, &self->lock);
    g_mutex_unlock (&self->lock);
    item_clear (self, item);
    g_mutex_lock (&self->lock);
    item_recycle (self, item);
    g_mutex_unlock (&self->lock);
    return ret;
  }
}

static gboolean
gst_ax_inference_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstAxInference *self = GST_AX_INFERENCE (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
    {
      gboolean ret = gst_pad_push_event (self->srcpad, event);

      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      self->srcresult = GST_FLOW_FLUSHING;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      /* the task frees the jobs it pops: pause it before cancelling */
      gst_pad_pause_task (self->srcpad);
      cancel_all (self);
      return ret;
    }
    case GST_EVENT_FLUSH_STOP:
    {
      GQueue sticky = G_QUEUE_INIT;
      GstEvent *ev;
      gboolean ret;

      drain_and_clear (self, &sticky);
      g_mutex_lock (&self->lock);
      self->flushing = FALSE;
      self->srcresult = GST_FLOW_OK;
      g_mutex_unlock (&self->lock);
      ret = gst_pad_push_event (self->srcpad, event);
      while ((ev = g_queue_pop_head (&sticky))) {
        gst_pad_store_sticky_event (self->srcpad, ev);
        gst_event_unref (ev);
      }
      if (!ret)
        return FALSE;
      return gst_pad_start_task (self->srcpad,
          (GstTaskFunction) gst_ax_inference_loop, self, NULL);
    }
    default:
      if (GST_EVENT_IS_SERIALIZED (event)) {
        GstFlowReturn res;

        g_mutex_lock (&self->lock);
        res = self->srcresult;
        g_mutex_unlock (&self->lock);
        if (res != GST_FLOW_OK) {
          /* the task is paused: an EOS still has to reach the sink so
           * that the pipeline can finish */
          if (GST_EVENT_TYPE (event) == GST_EVENT_EOS
              && res != GST_FLOW_FLUSHING)
            return gst_pad_push_event (self->srcpad, event);
          gst_event_unref (event);
          return FALSE;
        }
        enqueue_event (self, event);
        return TRUE;
      }
      return gst_pad_event_default (pad, parent, event);
  }
}

/* Another element looks for the device this one uses; one of another key
 * gets FALSE and the query goes on through this element. */
static gboolean
answer_context_query (GstAxInference * self, GstQuery * query)
{
  GstAxDevice *shared;
  gboolean ret;

  GST_OBJECT_LOCK (self);
  shared = self->shared ? gst_object_ref (self->shared) : NULL;
  GST_OBJECT_UNLOCK (self);
  ret = gst_ax_device_answer_query (shared, query);
  if (shared)
    gst_object_unref (shared);
  return ret;
}

static gboolean
gst_ax_inference_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstAxInference *self = GST_AX_INFERENCE (parent);

  if (gst_ax_model_query_is (query))
    return gst_ax_inference_answer_model_query (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && answer_context_query (self, query))
    return TRUE;
  return gst_pad_query_default (pad, parent, query);
}

/* ------------------------------------------------------------------ */
/* Downstream side                                                      */

static gboolean
gst_ax_inference_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstAxInference *self = GST_AX_INFERENCE (parent);

  if (gst_ax_model_query_is (query))
    return gst_ax_inference_answer_model_query (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && answer_context_query (self, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, lat;

    if (!gst_pad_peer_query (self->sinkpad, query))
      return FALSE;
    if (self->net == NULL)
      return TRUE;
    gst_query_parse_latency (query, &live, &min, &max);
    lat = simnpu_model_get_latency_ns (self->net);
    min += lat;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += lat * self->window;
    GST_DEBUG_OBJECT (self, "model latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (lat));
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
gst_ax_inference_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  return gst_pad_event_default (pad, parent, event);
}

/* Attaches the outputs of a completed frame item. */
static void
attach_outputs (GstAxInference * self, Item * item)
{
  guint i, o;

  for (i = 0; i < item->n_jobs; i++) {
    Job *job = &item->jobs[i];

    for (o = 0; o < self->n_outputs; o++) {
      const simnpu_tensor_spec *s = &self->out_specs[o];
      GstAxTensorMeta *m;

      gst_buffer_unmap (job->outs[o], &job->maps[o]);
      memset (&job->maps[o], 0, sizeof (GstMapInfo));
      m = gst_buffer_add_ax_tensor_meta (item->frame, s->name,
          GST_AX_TENSOR_ROLE_OUTPUT, gst_ax_tensor_dtype_from_simnpu (s->dtype),
          gst_ax_tensor_layout_from_simnpu (s->layout), s->n_dims, s->dims,
          s->scale, s->zero_point, job->outs[o]);
      job->outs[o] = NULL;
      if (m == NULL)
        continue;
      m->index = o;
      m->instance = job->instance;
      m->has_letterbox = job->has_letterbox;
      m->letterbox = job->letterbox;
      m->roi_id = job->roi_id;
    }
  }
}

/* Counts @item's time inside the window, which ends when the output
 * thread takes it and frees its slots (@popped_ns), before the postamble
 * and the push: so the depth never exceeds the window. A frame held there
 * after its jobs completed, while the output thread pushed the frames
 * before it, fills the window as much as one on the device. */
static void
account_window (GstAxInference * self, Item * item, guint64 popped_ns)
{
  if (item->enter_ns == 0 || popped_ns < item->enter_ns ||
      !gst_ax_probe_is_active ())
    return;
  if (self->window_first_ns == 0)
    self->window_first_ns = item->enter_ns;
  self->window_last_ns = popped_ns;
  self->window_frame_ns += popped_ns - item->enter_ns;
  if (item->done_ns != 0 && popped_ns > item->done_ns)
    self->window_held_ns += popped_ns - item->done_ns;
}

static void
report_jobs (GstAxInference * self, Item * item)
{
  guint i;

  if (!gst_ax_probe_is_active ())
    return;
  for (i = 0; i < item->n_jobs; i++) {
    const simnpu_job_result *r = &item->jobs[i].result;
    GstAxProbeDeviceEvent ev;

    ev.element = GST_ELEMENT (self);
    ev.group = self->group;
    ev.resource = r->core;
    ev.n_resources = self->dev_info.n_cores;
    ev.job_id = r->job_id;
    ev.start_ns = r->device_start_ns;
    ev.end_ns = r->device_end_ns;
    gst_ax_probe_device_event (&ev);
  }
  report_device (self);
}

/* Runs the postamble of each job of a completed frame item, from the
 * device outputs in the job's scratch into its mapped public outputs. */
static gboolean
run_postamble (GstAxInference * self, Item * item)
{
  simnpu_host_section_info info;
  simnpu_tensor_spec spec;
  simnpu_error err = { 0, "" };
  guint i, j, bound;
  int rc;

  simnpu_host_section_get_info (self->postamble, &info);
  for (i = 0; i < item->n_jobs; i++) {
    Job *job = &item->jobs[i];
    const void *in[MAX_OUTPUTS];
    void *out[MAX_OUTPUTS];
    GstAxProbeTimer timer;

    for (j = 0; j < info.n_inputs; j++) {
      simnpu_host_section_get_input (self->postamble, j, &spec, &bound);
      in[j] = job->scratch + self->dev_out_offset[bound];
    }
    for (j = 0; j < info.n_outputs; j++) {
      simnpu_host_section_get_output (self->postamble, j, &spec, &bound);
      out[j] = job->maps[bound].data;
    }
    gst_ax_probe_timer_start (&timer);
    rc = simnpu_host_section_run (self->postamble, in, out, &err);
    gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->group,
        STAGE_POSTAMBLE, GST_AX_PROBE_FLAG_STAGE);
    if (rc < 0) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The postamble of model \"%s\" failed.", self->group),
          ("%s: %s", simnpu_strerror (rc), err.message));
      return FALSE;
    }
  }
  return TRUE;
}

static void
gst_ax_inference_loop (GstAxInference * self)
{
  Item *item;
  guint64 wait_start_ns = 0, wait_end_ns = 0;
  GstFlowReturn ret;
  guint i;
  gint status = 0;
  GstAxProbeTimer timer;

  g_mutex_lock (&self->lock);
  while (!self->flushing && g_queue_is_empty (&self->queue))
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing)
    goto flushing;
  item = self->queue.head->data;
  if (item->frame) {
    gboolean probing = gst_ax_probe_is_active ();

    if (probing)
      wait_start_ns = gst_ax_probe_now_ns ();
    while (!self->flushing && item->n_done < item->n_jobs)
      g_cond_wait (&self->cond, &self->lock);
    if (self->flushing)
      goto flushing;
    if (probing)
      wait_end_ns = gst_ax_probe_now_ns ();
  }
  g_queue_pop_head_link (&self->queue);
  self->n_outstanding -= item->n_jobs;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  if (item->event) {
    GstEvent *ev = item->event;

    item->event = NULL;
    g_free (item);
    /* every job is done: a profile that cannot be written is reported
     * before the EOS, where an application still reads the bus */
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS && self->host_profile
        && simnpu_device_flush_host_profile (self->dev) < 0)
      gst_ax_inference_host_profile_failed (self);
    gst_pad_push_event (self->srcpad, ev);
    return;
  }

  for (i = 0; i < item->n_jobs; i++)
    if (item->jobs[i].result.status < 0)
      status = item->jobs[i].result.status;
  if (status < 0 || item->reported)
    goto job_failed;

  if (item->n_jobs > 0) {
    GstAxProbeSpan span = { GST_ELEMENT (self), self->group,
      STAGE_DEVICE_WAIT, wait_start_ns, wait_end_ns - wait_start_ns, 0, 0,
      GST_AX_PROBE_FLAG_DEVICE_WAIT | GST_AX_PROBE_FLAG_STAGE
    };
    /* a frame's jobs (one per region in a cascade) are waited for and
     * copied out together: each counts as a call of its own */
    gst_ax_probe_span_calls (&span, item->n_jobs);

    if (self->postamble && !run_postamble (self, item)) {
      item->reported = TRUE;
      status = SIMNPU_EINTERNAL;
      goto job_failed;
    }
    gst_ax_probe_timer_start (&timer);
    attach_outputs (self, item);
    gst_ax_probe_timer_stop_calls (&timer, GST_ELEMENT (self), self->group,
        STAGE_HOST_COPY_OUT, GST_AX_PROBE_FLAG_STAGE, item->n_jobs);
    account_window (self, item, wait_end_ns);
    report_jobs (self, item);
  }

  ret = gst_pad_push (self->srcpad, item->frame);
  item->frame = NULL;
  item_clear (self, item);
  g_mutex_lock (&self->lock);
  item_recycle (self, item);
  if (ret != GST_FLOW_OK && self->srcresult == GST_FLOW_OK)
    self->srcresult = ret;
  g_mutex_unlock (&self->lock);

  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "pausing task: %s", gst_flow_get_name (ret));
    if (ret == GST_FLOW_EOS || ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
      if (ret != GST_FLOW_EOS)
        GST_ELEMENT_FLOW_ERROR (self, ret);
      gst_pad_push_event (self->srcpad, gst_event_new_eos ());
    }
    gst_pad_pause_task (self->srcpad);
  }
  return;

  /* ERRORS */
flushing:
  {
    g_mutex_unlock (&self->lock);
    gst_pad_pause_task (self->srcpad);
    return;
  }
job_failed:
  {
    if (!item->reported)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("The device failed a job of model \"%s\".", self->group),
          ("%s", simnpu_strerror (status)));
    item_clear (self, item);
    g_mutex_lock (&self->lock);
    item_recycle (self, item);
    self->srcresult = GST_FLOW_ERROR;
    g_cond_broadcast (&self->cond);
    g_mutex_unlock (&self->lock);
    gst_pad_push_event (self->srcpad, gst_event_new_eos ());
    gst_pad_pause_task (self->srcpad);
    return;
  }
}

/* ------------------------------------------------------------------ */
/* States                                                               */

/* The parent class keeps the context; the device in it is taken in
 * NULL->READY (gst_ax_device_find()), so one set while the element runs
 * on another device applies from its next start. */
static void
gst_ax_inference_set_context (GstElement * element, GstContext * context)
{
  GstAxInference *self = GST_AX_INFERENCE (element);
  GstAxDevice *shared, *offered = NULL;

  GST_OBJECT_LOCK (self);
  shared = self->shared ? gst_object_ref (self->shared) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (shared) {
    offered = gst_ax_device_from_context (context, shared->spec,
        shared->device_id);
    if (offered && offered != shared)
      GST_WARNING_OBJECT (self, "a context with another device of this "
          "key was set while %" GST_PTR_FORMAT " is in use; it applies "
          "from the next start", shared);
    gst_clear_object (&offered);
    gst_object_unref (shared);
  }
  GST_ELEMENT_CLASS (gst_ax_inference_parent_class)->set_context (element,
      context);
}

/* The element upstream of @pad's peer, through ghost pads, or NULL. */
static GstElement *
upstream_element (GstPad * pad)
{
  GstPad *peer = gst_pad_get_peer (pad), *target;
  GstElement *up;

  while (peer && GST_IS_GHOST_PAD (peer)) {
    target = gst_ghost_pad_get_target (GST_GHOST_PAD (peer));
    gst_object_unref (peer);
    peer = target;
  }
  if (peer && GST_IS_PROXY_PAD (peer)) {
    /* a ghost sink pad's inside: what feeds the bin from outside */
    GstPad *ghost = GST_PAD (gst_proxy_pad_get_internal (GST_PROXY_PAD (peer)));

    gst_object_unref (peer);
    peer = ghost ? gst_pad_get_peer (ghost) : NULL;
    if (ghost)
      gst_object_unref (ghost);
  }
  if (peer == NULL)
    return NULL;
  up = gst_pad_get_parent_element (peer);
  gst_object_unref (peer);
  return up;
}

static gboolean
runs_per_roi (GstElement * e)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "roi-mode");
  gboolean on = FALSE;

  if (pspec && pspec->value_type == G_TYPE_BOOLEAN)
    g_object_get (e, "roi-mode", &on, NULL);
  return on;
}

/* Whether @obj's name is the one GStreamer made up for it (the type's
 * name without "Gst", in lower case, and a number), not the user's. */
static gboolean
has_default_name (GstObject * obj)
{
  const gchar *type = G_OBJECT_TYPE_NAME (obj), *name = GST_OBJECT_NAME (obj);
  gchar *prefix;
  gsize n;
  gboolean made_up;

  if (g_str_has_prefix (type, "Gst"))
    type += strlen ("Gst");
  prefix = g_ascii_strdown (type, -1);
  n = strlen (prefix);
  made_up = name && strncmp (name, prefix, n) == 0 && name[n] != '\0';
  for (; made_up && name[n]; n++)
    made_up = g_ascii_isdigit (name[n]);
  g_free (prefix);
  return made_up;
}

/* The profiler's group: a model that runs on the ROIs another model made
 * (an element upstream crops them, roi-mode) is a cascade, shown as
 * "detector/classifier" so that its per-detection calls read under the
 * model that produced them; inside a bin the user named, the bin's name
 * comes first, as in "cascade/detector/classifier". */
static const gchar *
scoped_group (GstAxInference * self)
{
  GstElement *e = GST_ELEMENT (gst_object_ref (self)), *up;
  GstObject *parent;
  gboolean per_roi = FALSE;
  const gchar *producer = NULL;
  GString *s = g_string_new (NULL);
  const gchar *group;
  guint hops;

  for (hops = 0; hops < MAX_SCOPE_HOPS && e->numsinkpads == 1; hops++) {
    up = upstream_element (GST_PAD (e->sinkpads->data));
    gst_object_unref (e);
    e = up;
    if (e == NULL)
      break;
    if (GST_IS_AX_INFERENCE (e)) {
      producer = GST_AX_INFERENCE (e)->model_group;
      break;
    }
    per_roi = per_roi || runs_per_roi (e);
  }
  if (e)
    gst_object_unref (e);

  parent = gst_object_get_parent (GST_OBJECT (self));
  if (parent && GST_IS_BIN (parent) && !GST_IS_PIPELINE (parent) &&
      !has_default_name (parent))
    g_string_append_printf (s, "%s/", GST_OBJECT_NAME (parent));
  if (parent)
    gst_object_unref (parent);
  if (per_roi && producer)
    g_string_append_printf (s, "%s/", producer);
  g_string_append (s, self->model_group);
  group = g_intern_string (s->str);
  g_string_free (s, TRUE);
  return group;
}

static gboolean
start_streaming (GstAxInference * self)
{
  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  self->srcresult = GST_FLOW_OK;
  self->n_outstanding = 0;
  self->warned_no_tensor = FALSE;
  g_mutex_unlock (&self->lock);
  /* the task is not running: the output thread's books are free */
  self->window_frame_ns = self->window_held_ns = 0;
  self->window_first_ns = self->window_last_ns = 0;
  /* the links are made by now; nothing has been reported yet */
  self->group = scoped_group (self);
  report_device (self);
  return gst_pad_start_task (self->srcpad,
      (GstTaskFunction) gst_ax_inference_loop, self, NULL);
}

static void
stop_streaming (GstAxInference * self)
{
  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  self->srcresult = GST_FLOW_FLUSHING;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  /* the task frees the jobs it pops: stop it before cancelling; the chain
   * function has returned, the pads are deactivated */
  gst_pad_stop_task (self->srcpad);
  cancel_all (self);
  drain_and_clear (self, NULL);
  report_device (self);
}

static GstStateChangeReturn
gst_ax_inference_change_state (GstElement * element, GstStateChange transition)
{
  GstAxInference *self = GST_AX_INFERENCE (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      if (!gst_ax_inference_open_device (self))
        return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!start_streaming (self))
        return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* unblock the chain function before the pads deactivate */
      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      self->srcresult = GST_FLOW_FLUSHING;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (gst_ax_inference_parent_class)->change_state
      (element, transition);

  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      stop_streaming (self);
      break;
    case GST_STATE_CHANGE_READY_TO_NULL:
      gst_ax_inference_close_device (self);
      break;
    default:
      break;
  }
  return ret;
}
