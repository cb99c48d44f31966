/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include "axtestelements.h"

#include <gst/base/gstbasetransform.h>
#include <gst/ax/ax.h>
#include <errno.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>


static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static guint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

/* ------------------------------------------------------------ axtestburn */

#define AX_TYPE_TEST_BURN (ax_test_burn_get_type ())
G_DECLARE_FINAL_TYPE (AxTestBurn, ax_test_burn, AX, TEST_BURN,
    GstBaseTransform);

struct _AxTestBurn
{
  GstBaseTransform parent;
  guint burn_us;
  /* slept after the burn: a sleeper with its own wall time when 0 us burn */
  guint sleep_us;
  /* ground truth: the wall time of the burns, summed (object lock) */
  guint64 wall_ns;
  /* and their CPU time as the profilers read it (the probe API's reader) */
  guint64 cpu_ns;
  guint calls;
};

G_DEFINE_TYPE (AxTestBurn, ax_test_burn, GST_TYPE_BASE_TRANSFORM);

enum
{
  PROP_BURN_0,
  PROP_BURN_US,
  PROP_BURN_WALL_NS,
  PROP_BURN_CALLS,
  PROP_BURN_SLEEP_US,
  PROP_BURN_CPU_NS,
};

static void
ax_test_burn_set_property (GObject * object, guint id, const GValue * value,
    GParamSpec * pspec)
{
  AxTestBurn *self = AX_TEST_BURN (object);

  GST_OBJECT_LOCK (self);
  if (id == PROP_BURN_US)
    self->burn_us = g_value_get_uint (value);
  else if (id == PROP_BURN_SLEEP_US)
    self->sleep_us = g_value_get_uint (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
ax_test_burn_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  AxTestBurn *self = AX_TEST_BURN (object);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_BURN_US:
      g_value_set_uint (value, self->burn_us);
      break;
    case PROP_BURN_WALL_NS:
      g_value_set_uint64 (value, self->wall_ns);
      break;
    case PROP_BURN_CALLS:
      g_value_set_uint (value, self->calls);
      break;
    case PROP_BURN_SLEEP_US:
      g_value_set_uint (value, self->sleep_us);
      break;
    case PROP_BURN_CPU_NS:
      g_value_set_uint64 (value, self->cpu_ns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
ax_test_burn_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  AxTestBurn *self = AX_TEST_BURN (trans);
  guint64 wall0 = gst_ax_probe_now_ns (), cpu0, cpu1, faults;
  guint64 start = thread_cpu_ns (), budget;
  volatile guint64 sink = 0;
  guint sleep_us;

  gst_ax_probe_thread_usage (&cpu0, &faults);
  GST_OBJECT_LOCK (self);
  budget = self->burn_us * GST_USECOND;
  sleep_us = self->sleep_us;
  GST_OBJECT_UNLOCK (self);
  while (thread_cpu_ns () - start < budget)
    sink++;
  if (sleep_us > 0)
    g_usleep (sleep_us);
  gst_ax_probe_thread_usage (&cpu1, &faults);
  GST_OBJECT_LOCK (self);
  self->cpu_ns += cpu1 - cpu0;
  self->wall_ns += gst_ax_probe_now_ns () - wall0;
  self->calls++;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

static void
ax_test_burn_class_init (AxTestBurnClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = ax_test_burn_set_property;
  gobject_class->get_property = ax_test_burn_get_property;
  g_object_class_install_property (gobject_class, PROP_BURN_US,
      g_param_spec_uint ("burn-us", "Burn", "Thread CPU time to burn per "
          "buffer (us)", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BURN_SLEEP_US,
      g_param_spec_uint ("sleep-us", "Sleep", "Time to sleep per buffer "
          "after the burn (us)", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BURN_CPU_NS,
      g_param_spec_uint64 ("cpu-ns", "CPU", "Summed CPU time of the burns "
          "and sleeps, read with the probe API's thread usage reader", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BURN_WALL_NS,
      g_param_spec_uint64 ("wall-ns", "Wall", "Summed wall time of the "
          "burns", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BURN_CALLS,
      g_param_spec_uint ("calls", "Calls", "Burns done", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &any_sink);
  gst_element_class_add_static_pad_template (element_class, &any_src);
  gst_element_class_set_static_metadata (element_class, "CPU burner",
      "Filter", "Test-only: burns a known CPU time per buffer", "gst-ax");
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip = ax_test_burn_transform_ip;
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip_on_passthrough = TRUE;
}

static void
ax_test_burn_init (AxTestBurn * self)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

/* ------------------------------------------------------------ axtesttouch */

#define AX_TYPE_TEST_TOUCH (ax_test_touch_get_type ())
G_DECLARE_FINAL_TYPE (AxTestTouch, ax_test_touch, AX, TEST_TOUCH,
    GstBaseTransform);

struct _AxTestTouch
{
  GstBaseTransform parent;
  guint pages;
};

G_DEFINE_TYPE (AxTestTouch, ax_test_touch, GST_TYPE_BASE_TRANSFORM);

static void
ax_test_touch_set_property (GObject * object, guint id, const GValue * value,
    GParamSpec * pspec)
{
  AxTestTouch *self = AX_TEST_TOUCH (object);

  GST_OBJECT_LOCK (self);
  self->pages = g_value_get_uint (value);
  GST_OBJECT_UNLOCK (self);
}

static void
ax_test_touch_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  AxTestTouch *self = AX_TEST_TOUCH (object);

  GST_OBJECT_LOCK (self);
  g_value_set_uint (value, self->pages);
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
ax_test_touch_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  AxTestTouch *self = AX_TEST_TOUCH (trans);
  gsize page = sysconf (_SC_PAGESIZE), len, i;
  guint8 *mem;

  GST_OBJECT_LOCK (self);
  len = self->pages * page;
  GST_OBJECT_UNLOCK (self);
  if (len == 0)
    return GST_FLOW_OK;
  /* a fresh anonymous mapping: every first touch is one minor fault */
  mem = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
      -1, 0);
  if (mem == MAP_FAILED) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("mmap failed"),
        ("mmap of %" G_GSIZE_FORMAT " bytes: %s", len, g_strerror (errno)));
    return GST_FLOW_ERROR;
  }
  for (i = 0; i < len; i += page)
    mem[i] = 1;
  munmap (mem, len);
  return GST_FLOW_OK;
}

static void
ax_test_touch_class_init (AxTestTouchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = ax_test_touch_set_property;
  gobject_class->get_property = ax_test_touch_get_property;
  g_object_class_install_property (gobject_class, 1,
      g_param_spec_uint ("pages", "Pages", "Fresh pages touched per buffer",
          0, G_MAXUINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &any_sink);
  gst_element_class_add_static_pad_template (element_class, &any_src);
  gst_element_class_set_static_metadata (element_class, "Page toucher",
      "Filter", "Test-only: touches N fresh pages per buffer", "gst-ax");
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip = ax_test_touch_transform_ip;
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip_on_passthrough = TRUE;
}

static void
ax_test_touch_init (AxTestTouch * self)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

/* ------------------------------------------------------------ axtestdevice */

#define AX_TYPE_TEST_DEVICE (ax_test_device_get_type ())
G_DECLARE_FINAL_TYPE (AxTestDevice, ax_test_device, AX, TEST_DEVICE,
    GstElement);

typedef struct
{
  GstBuffer *buffer;
  guint64 id;
  guint core;
  guint64 start_ns;
  guint64 end_ns;
} Job;

struct _AxTestDevice
{
  GstElement parent;
  GstPad *sinkpad;
  GstPad *srcpad;

  /* set before PAUSED */
  const gchar *model;
  guint device_ms;
  guint cores;
  guint in_flight;

  GMutex lock;
  GCond cond;
  /* protected by lock */
  GQueue jobs;
  gboolean eos;
  gboolean flushing;
  guint64 next_id;
  guint64 done;
  GstFlowReturn last_flow;
  /* ground truth for the tests */
  guint64 busy_ns;
  guint64 first_start_ns;
  guint64 last_end_ns;
  guint64 host_ns;
  /* a simulator that cannot keep pace: outputs come lag_ms after the
   * modelled end, and its threads are said to use sim_cpu_ms per job */
  guint lag_ms;
  guint sim_cpu_ms;
  /* elements with the same non-zero handle share one device */
  guint64 device_handle;
};

G_DEFINE_TYPE (AxTestDevice, ax_test_device, GST_TYPE_ELEMENT);

enum
{
  PROP_DEV_0,
  PROP_MODEL,
  PROP_DEVICE_MS,
  PROP_CORES,
  PROP_IN_FLIGHT,
  PROP_BUSY_NS,
  PROP_WINDOW_NS,
  PROP_HOST_NS,
  PROP_LAG_MS,
  PROP_SIM_CPU_MS,
  PROP_DEVICE_HANDLE,
};

static void
ax_test_device_report (AxTestDevice * self, guint64 done)
{
  GstAxProbeDevice dev = { GST_ELEMENT (self), self->model, "testdev",
    self->cores, self->in_flight, done, done * self->sim_cpu_ms * GST_MSECOND,
    done * self->lag_ms * GST_MSECOND
  };

  dev.device_handle = self->device_handle;

  gst_ax_probe_device (&dev);
}

static GstFlowReturn
ax_test_device_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  AxTestDevice *self = AX_TEST_DEVICE (parent);
  GstAxProbeTimer timer;
  GstMapInfo map;
  Job *job;
  GstFlowReturn ret;
  volatile guint sum = 0;
  guint64 host0, host1;
  gsize i;

  host0 = gst_ax_probe_now_ns ();
  gst_ax_probe_timer_start (&timer);
  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    for (i = 0; i < map.size; i++)
      sum += map.data[i];
    gst_buffer_unmap (buf, &map);
  }
  gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->model,
      "host copy in", GST_AX_PROBE_FLAG_SUBMIT);
  host1 = gst_ax_probe_now_ns ();

  g_mutex_lock (&self->lock);
  self->host_ns += host1 - host0;
  while (!self->flushing && g_queue_get_length (&self->jobs) >= self->in_flight)
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing) {
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  job = g_new0 (Job, 1);
  job->buffer = buf;
  job->id = self->next_id++;
  job->core = job->id % self->cores;
  job->start_ns = gst_ax_probe_now_ns ();
  job->end_ns = job->start_ns + self->device_ms * GST_MSECOND;
  g_queue_push_tail (&self->jobs, job);
  g_cond_broadcast (&self->cond);
  ret = self->last_flow;
  g_mutex_unlock (&self->lock);
  return ret;
}

static void
ax_test_device_loop (gpointer user_data)
{
  AxTestDevice *self = user_data;
  GstAxProbeTimer timer;
  GstAxProbeDeviceEvent ev;
  struct timespec until;
  GstFlowReturn ret;
  Job *job;
  guint64 done, host0, host1;

  g_mutex_lock (&self->lock);
  while (!self->flushing && !self->eos && g_queue_is_empty (&self->jobs))
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing) {
    g_mutex_unlock (&self->lock);
    gst_pad_pause_task (self->srcpad);
    return;
  }
  if (g_queue_is_empty (&self->jobs)) {
    g_mutex_unlock (&self->lock);
    gst_pad_push_event (self->srcpad, gst_event_new_eos ());
    gst_pad_pause_task (self->srcpad);
    return;
  }
  job = g_queue_peek_head (&self->jobs);
  g_mutex_unlock (&self->lock);

  gst_ax_probe_timer_start (&timer);
  until.tv_sec = (job->end_ns + self->lag_ms * GST_MSECOND) / GST_SECOND;
  until.tv_nsec = (job->end_ns + self->lag_ms * GST_MSECOND) % GST_SECOND;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
      EINTR);
  gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->model,
      "device wait", GST_AX_PROBE_FLAG_DEVICE_WAIT);

  ev.element = GST_ELEMENT (self);
  ev.group = self->model;
  ev.resource = job->core;
  ev.n_resources = self->cores;
  ev.job_id = job->id;
  ev.start_ns = job->start_ns;
  ev.end_ns = job->end_ns;
  gst_ax_probe_device_event (&ev);

  host0 = gst_ax_probe_now_ns ();
  gst_ax_probe_timer_start (&timer);
  g_mutex_lock (&self->lock);
  g_queue_pop_head (&self->jobs);
  done = ++self->done;
  self->busy_ns += job->end_ns - job->start_ns;
  if (self->first_start_ns == 0)
    self->first_start_ns = job->start_ns;
  self->last_end_ns = job->end_ns;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  gst_ax_probe_timer_stop (&timer, GST_ELEMENT (self), self->model,
      "dequant", GST_AX_PROBE_FLAG_NONE);
  host1 = gst_ax_probe_now_ns ();
  g_mutex_lock (&self->lock);
  self->host_ns += host1 - host0;
  g_mutex_unlock (&self->lock);
  ax_test_device_report (self, done);

  ret = gst_pad_push (self->srcpad, job->buffer);
  g_free (job);
  if (ret != GST_FLOW_OK) {
    g_mutex_lock (&self->lock);
    self->last_flow = ret;
    g_cond_broadcast (&self->cond);
    g_mutex_unlock (&self->lock);
    if (ret == GST_FLOW_EOS || ret < GST_FLOW_EOS)
      gst_pad_push_event (self->srcpad, gst_event_new_eos ());
    gst_pad_pause_task (self->srcpad);
  }
}

static void
ax_test_device_drain (AxTestDevice * self)
{
  Job *job;

  while ((job = g_queue_pop_head (&self->jobs)) != NULL) {
    gst_buffer_unref (job->buffer);
    g_free (job);
  }
}

static gboolean
ax_test_device_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  AxTestDevice *self = AX_TEST_DEVICE (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      g_mutex_lock (&self->lock);
      self->eos = TRUE;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      return gst_pad_push_event (self->srcpad, event);
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

static gboolean
ax_test_device_src_activate (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  AxTestDevice *self = AX_TEST_DEVICE (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  g_mutex_lock (&self->lock);
  self->flushing = !active;
  self->eos = FALSE;
  self->last_flow = GST_FLOW_OK;
  if (active)
    self->busy_ns = self->first_start_ns = self->last_end_ns =
        self->host_ns = 0;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (active) {
    ax_test_device_report (self, 0);
    return gst_pad_start_task (pad, ax_test_device_loop, self, NULL);
  }
  gst_pad_stop_task (pad);
  g_mutex_lock (&self->lock);
  ax_test_device_drain (self);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
ax_test_device_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  AxTestDevice *self = AX_TEST_DEVICE (object);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_MODEL:
      self->model = g_intern_string (g_value_get_string (value));
      break;
    case PROP_DEVICE_MS:
      self->device_ms = g_value_get_uint (value);
      break;
    case PROP_CORES:
      self->cores = g_value_get_uint (value);
      break;
    case PROP_IN_FLIGHT:
      self->in_flight = g_value_get_uint (value);
      break;
    case PROP_LAG_MS:
      self->lag_ms = g_value_get_uint (value);
      break;
    case PROP_SIM_CPU_MS:
      self->sim_cpu_ms = g_value_get_uint (value);
      break;
    case PROP_DEVICE_HANDLE:
      self->device_handle = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
ax_test_device_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  AxTestDevice *self = AX_TEST_DEVICE (object);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_DEVICE_MS:
      g_value_set_uint (value, self->device_ms);
      break;
    case PROP_CORES:
      g_value_set_uint (value, self->cores);
      break;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, self->in_flight);
      break;
    case PROP_LAG_MS:
      g_value_set_uint (value, self->lag_ms);
      break;
    case PROP_SIM_CPU_MS:
      g_value_set_uint (value, self->sim_cpu_ms);
      break;
    case PROP_DEVICE_HANDLE:
      g_value_set_uint64 (value, self->device_handle);
      break;
    case PROP_BUSY_NS:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->busy_ns);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_WINDOW_NS:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->last_end_ns - self->first_start_ns);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_HOST_NS:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->host_ns);
      g_mutex_unlock (&self->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
ax_test_device_finalize (GObject * object)
{
  AxTestDevice *self = AX_TEST_DEVICE (object);

  ax_test_device_drain (self);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (ax_test_device_parent_class)->finalize (object);
}

static void
ax_test_device_class_init (AxTestDeviceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = ax_test_device_set_property;
  gobject_class->get_property = ax_test_device_get_property;
  gobject_class->finalize = ax_test_device_finalize;
  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model-name", "Model", "Model name (group)",
          "testnet", G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_MS,
      g_param_spec_uint ("device-ms", "Device ms", "Device time per job",
          1, 1000, 4, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CORES,
      g_param_spec_uint ("cores", "Cores", "Device cores", 1, 64, 4,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "In flight", "Jobs outstanding", 1, 64,
          2, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LAG_MS,
      g_param_spec_uint ("lag-ms", "Lag ms", "How late the functional "
          "compute delivers each job after its modelled end", 0, 1000, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SIM_CPU_MS,
      g_param_spec_uint ("sim-cpu-ms", "Simulator CPU ms", "Simulator CPU "
          "reported per job", 0, 1000, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_HANDLE,
      g_param_spec_uint64 ("device-handle", "Device handle", "Identity of "
          "the device reported to profilers: elements with the same "
          "non-zero handle share one", 0, G_MAXUINT64, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BUSY_NS,
      g_param_spec_uint64 ("busy-ns", "Busy", "Summed job time on the "
          "device cores", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_WINDOW_NS,
      g_param_spec_uint64 ("window-ns", "Window", "First job start to last "
          "job end", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_HOST_NS,
      g_param_spec_uint64 ("host-ns", "Host", "Summed wall of the host "
          "stages", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &any_sink);
  gst_element_class_add_static_pad_template (element_class, &any_src);
  gst_element_class_set_static_metadata (element_class, "Fake device stage",
      "Filter", "Test-only: reports device stages through the probe API",
      "gst-ax");
}

static void
ax_test_device_init (AxTestDevice * self)
{
  self->model = g_intern_static_string ("testnet");
  self->device_ms = 4;
  self->cores = 4;
  self->in_flight = 2;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->jobs);

  self->sinkpad = gst_pad_new_from_static_template (&any_sink, "sink");
  gst_pad_set_chain_function (self->sinkpad, ax_test_device_chain);
  gst_pad_set_event_function (self->sinkpad, ax_test_device_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&any_src, "src");
  gst_pad_set_activatemode_function (self->srcpad, ax_test_device_src_activate);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

/* ---------------------------------------------------------- axtestdecode */

/* Like a video decoder: holds one frame (its reorder delay), then pushes a
 * NEW buffer per input carrying the input's PTS, or its DTS when it has
 * none (as GstVideoDecoder does for a demuxer's DTS-only buffers), plus
 * offset-ms, which moves the frames onto another timeline. */
#define AX_TYPE_TEST_DECODE (ax_test_decode_get_type ())
G_DECLARE_FINAL_TYPE (AxTestDecode, ax_test_decode, AX, TEST_DECODE,
    GstElement);

struct _AxTestDecode
{
  GstElement parent;
  GstPad *sinkpad;
  GstPad *srcpad;
  /* streaming thread only */
  GstBuffer *held;
  guint offset_ms;
};

G_DEFINE_TYPE (AxTestDecode, ax_test_decode, GST_TYPE_ELEMENT);

enum
{
  PROP_DECODE_0,
  PROP_OFFSET_MS,
};

static GstFlowReturn
ax_test_decode_push_held (AxTestDecode * self)
{
  GstBuffer *in = self->held, *out;
  GstClockTime ts;

  if (in == NULL)
    return GST_FLOW_OK;
  self->held = NULL;
  ts = GST_BUFFER_PTS_IS_VALID (in) ? GST_BUFFER_PTS (in) : GST_BUFFER_DTS (in);
  out = gst_buffer_new_allocate (NULL, gst_buffer_get_size (in), NULL);
  GST_BUFFER_PTS (out) = GST_CLOCK_TIME_IS_VALID (ts) ?
      ts + self->offset_ms * GST_MSECOND : GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
  gst_buffer_unref (in);
  return gst_pad_push (self->srcpad, out);
}

static GstFlowReturn
ax_test_decode_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  AxTestDecode *self = AX_TEST_DECODE (parent);
  GstFlowReturn ret = ax_test_decode_push_held (self);

  self->held = buf;
  return ret;
}

static gboolean
ax_test_decode_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  AxTestDecode *self = AX_TEST_DECODE (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    ax_test_decode_push_held (self);
  else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    gst_clear_buffer (&self->held);
  return gst_pad_event_default (pad, parent, event);
}

static void
ax_test_decode_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  AxTestDecode *self = AX_TEST_DECODE (object);

  if (id == PROP_OFFSET_MS)
    self->offset_ms = g_value_get_uint (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
ax_test_decode_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  AxTestDecode *self = AX_TEST_DECODE (object);

  if (id == PROP_OFFSET_MS)
    g_value_set_uint (value, self->offset_ms);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
ax_test_decode_finalize (GObject * object)
{
  gst_clear_buffer (&AX_TEST_DECODE (object)->held);
  G_OBJECT_CLASS (ax_test_decode_parent_class)->finalize (object);
}

static void
ax_test_decode_class_init (AxTestDecodeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = ax_test_decode_set_property;
  gobject_class->get_property = ax_test_decode_get_property;
  gobject_class->finalize = ax_test_decode_finalize;
  g_object_class_install_property (gobject_class, PROP_OFFSET_MS,
      g_param_spec_uint ("offset-ms", "Offset ms", "Added to every output "
          "PTS", 0, G_MAXUINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &any_sink);
  gst_element_class_add_static_pad_template (element_class, &any_src);
  gst_element_class_set_static_metadata (element_class, "Fake decoder",
      "Codec/Decoder", "Test-only: new buffers stamped like a decoder's",
      "gst-ax");
}

static void
ax_test_decode_init (AxTestDecode * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&any_sink, "sink");
  gst_pad_set_chain_function (self->sinkpad, ax_test_decode_chain);
  gst_pad_set_event_function (self->sinkpad, ax_test_decode_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&any_src, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

void
ax_test_elements_register (void)
{
  gst_element_register (NULL, "axtestburn", GST_RANK_NONE, AX_TYPE_TEST_BURN);
  gst_element_register (NULL, "axtesttouch", GST_RANK_NONE, AX_TYPE_TEST_TOUCH);
  gst_element_register (NULL, "axtestdevice", GST_RANK_NONE,
      AX_TYPE_TEST_DEVICE);
  gst_element_register (NULL, "axtestdecode", GST_RANK_NONE,
      AX_TYPE_TEST_DECODE);
}
