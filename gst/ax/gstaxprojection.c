/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The projection onto the modelled device: a discrete-event model of the
 * pipeline the report measured, run with every device job at its
 * modelled time.
 *
 * - Each streaming thread is a server. For each frame it takes its input
 *   (a new frame at a source, the head of a queue, or the next frame of a
 *   model once all its jobs are done, in order), serves it for its rows'
 *   CPU per frame as measured on this host, then hands it on: into a
 *   queue (blocking while the queue is at its capacity), into a model
 *   (blocking while the model's in-flight window has no room for the
 *   frame's jobs), or to a sink.
 * - A device has its cores; a job goes to the core that frees up first,
 *   in submission order, and holds it for its modelled time (the report's
 *   device_ms at the run's time scale, rescaled).
 * - The figures are taken between the first and the last tenth of the
 *   frames at the busiest sink, so that filling and draining are left
 *   out. The verdict is the report's own (gst_ax_report_make_verdict()),
 *   made on a copy of the report whose rows, queues and devices hold the
 *   model's figures instead of the run's.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstax-private.h"
#include "gstaxprojection-private.h"

#include <math.h>
#include <string.h>

#define PERCENT 100.0
#define MS_PER_S 1000.0

/* ------------------------------------------------------------------ */
/* Topology                                                             */

typedef struct
{
  gchar *group;
  gchar *element;
  gchar *row;
  guint thread;
} TopoRow;

typedef struct
{
  gchar *group;
  gchar *element;
  gdouble time_scale;
  gchar *resources;
} TopoDevice;

struct _GstAxProjectionTopology
{
  GArray *rows;
  GArray *devices;
};

static void
clear_topo_row (gpointer data)
{
  TopoRow *t = data;

  g_free (t->group);
  g_free (t->element);
  g_free (t->row);
}

static void
clear_topo_device (gpointer data)
{
  TopoDevice *t = data;

  g_free (t->group);
  g_free (t->element);
  g_free (t->resources);
}

GstAxProjectionTopology *
gst_ax_projection_topology_new (void)
{
  GstAxProjectionTopology *t = g_new0 (GstAxProjectionTopology, 1);

  t->rows = g_array_new (FALSE, TRUE, sizeof (TopoRow));
  g_array_set_clear_func (t->rows, clear_topo_row);
  t->devices = g_array_new (FALSE, TRUE, sizeof (TopoDevice));
  g_array_set_clear_func (t->devices, clear_topo_device);
  return t;
}

void
gst_ax_projection_topology_free (GstAxProjectionTopology * topology)
{
  if (topology == NULL)
    return;
  g_array_unref (topology->rows);
  g_array_unref (topology->devices);
  g_free (topology);
}

void
gst_ax_projection_topology_add_row (GstAxProjectionTopology * topology,
    const gchar * group, const gchar * element, const gchar * row, guint thread)
{
  TopoRow t = { g_strdup (group), g_strdup (element), g_strdup (row), thread };

  g_array_append_val (topology->rows, t);
}

void
gst_ax_projection_topology_add_device (GstAxProjectionTopology * topology,
    const gchar * group, const gchar * element, gdouble time_scale,
    const gchar * resources)
{
  TopoDevice t = { g_strdup (group), g_strdup (element), time_scale,
    g_strdup (resources)
  };

  g_array_append_val (topology->devices, t);
}

static gint
topo_thread (const GstAxProjectionTopology * t, const gchar * group,
    const GstAxReportRow * row)
{
  guint i;

  for (i = 0; i < t->rows->len; i++) {
    const TopoRow *r = &g_array_index (t->rows, TopoRow, i);

    if (g_strcmp0 (r->group, group) == 0 && g_strcmp0 (r->row, row->name) == 0
        && g_strcmp0 (r->element, row->element) == 0)
      return (gint) r->thread;
  }
  return -1;
}

/* ------------------------------------------------------------------ */
/* The model's parts                                                    */

typedef enum
{
  END_SOURCE,
  END_QUEUE,
  END_MODEL,
  END_SINK,
  /* the thread's frames reach no sink the report counts (a branch that
   * ends in a fakesink of its own, a thread that feeds an element which
   * makes frames of its own, such as imagefreeze) */
  END_NONE,
} EndKind;

typedef enum
{
  T_WAIT,
  T_BUSY,
  T_BLOCKED,
  T_DONE,
} ThreadState;

/* what a frame carries through the model */
typedef struct
{
  gdouble enter_ms;
  guint source;
} Frame;

/* a level followed over time; its integrals count only while measuring */
typedef struct
{
  gdouble level;
  gdouble last_ms;
  gdouble area;
  gdouble full_ms;
  gdouble empty_ms;
  gdouble max;
  gdouble cap;
} Level;

typedef struct
{
  gint topo_id;
  GPtrArray *rows;              /* GstAxReportRow *, in report order */
  GPtrArray *row_groups;        /* their groups' names */
  gdouble frames_through;
  gdouble service_ms;
  /* the part of it a model's own stages take once the frame has room in
   * the model's window (its preamble, its host copy in), before its jobs
   * go to the device */
  gdouble in_window_ms;
  gdouble src_ms;
  EndKind in_kind;
  gint in_index;
  EndKind out_kind;
  gint out_index;
  /* the rows that take the thread's waits */
  GstAxReportRow *in_row;
  GstAxReportRow *device_wait_row;
  GstAxReportRow *out_row;
  /* simulation */
  ThreadState state;
  gdouble until_ms;
  Frame frame;
  /* the frame is handed on, but the hand-off still holds the thread */
  gboolean handed;
  guint produced;
  guint processed;
  guint at_sink;
  /* measured: time busy, blocked on the output, waiting for an input
   * (split: the model's head not done yet, or nothing to take) */
  Level busy;
  Level blocked;
  Level wait_empty;
  Level wait_device;
  guint processed_measured;
} Thread;

typedef struct
{
  const GstAxReportQueue *q;
  guint queue_index;
  guint capacity;
  gint producer;
  gint consumer;
  GQueue frames;
  Level level;
} SimQueue;

typedef struct
{
  Frame frame;
  guint n_jobs;
  guint n_done;
  gdouble done_ms;
} Item;

typedef struct
{
  const GstAxReportDevice *d;
  guint device_index;
  const gchar *element;
  guint chip;
  guint window;
  /* a job's actions in order at the projected time scale: on its core
   * (-1) or an engine of the chip (its index), after those it waits for */
  GArray *segments;             /* Segment */
  /* the whole job on an idle device */
  gdouble job_ms;
  gdouble span_sum_ms;
  guint64 spans;
  gdouble jobs_per_frame;
  guint64 frames_in;
  gint submitter;
  gint output;
  GQueue items;
  guint outstanding;
  /* frames inside the window, and finished ones among them */
  Level depth;
  Level held;
  guint64 frames_submitted;
} SimModel;

typedef struct
{
  gint resource;
  gdouble ms;
  /* earlier actions it waits for, -1 for none */
  gint dep;
  gint dep2;
} Segment;

/* A resource's reservations: sorted, disjoint [start, end) pairs; those
 * that end before the present are dropped. */
typedef struct
{
  GArray *busy;                 /* pairs of gdouble */
  gdouble last_end_ms;
} Resource;

typedef struct
{
  guint cores;
  Resource *core;
  guint n_engines;
  gchar *engine_names[GST_AX_PROJECTION_MAX_ENGINES];
  Resource engine[GST_AX_PROJECTION_MAX_ENGINES];
  /* job spans (first action's start to last one's end), for the busy
   * time inside the measured span */
  GArray *jobs;                 /* pairs of gdouble */
} Chip;

typedef struct
{
  const GstAxReport *r;
  GPtrArray *threads;           /* Thread * */
  GArray *queues;               /* SimQueue */
  GArray *models;               /* SimModel */
  GArray *chips;                /* Chip */
  gdouble host_speed;
  guint frames_per_source;
  gboolean serial;
  guint in_pipeline;
  /* simulation */
  gdouble now_ms;
  GArray *wakeups;              /* gdouble, a binary min-heap */
  gboolean measuring;
  gdouble t0_ms;
  gdouble t1_ms;
  gint busiest_sink;
  guint sink_frames_total;
  guint sink_target_t0;
  guint sink_target_t1;
  GArray *latencies;
} Sim;

static void
thread_free (gpointer data)
{
  Thread *t = data;

  g_ptr_array_unref (t->rows);
  g_ptr_array_unref (t->row_groups);
  g_free (t);
}

static void
sim_clear (Sim * s)
{
  guint i;

  if (s->threads)
    g_ptr_array_unref (s->threads);
  for (i = 0; s->queues && i < s->queues->len; i++) {
    SimQueue *q = &g_array_index (s->queues, SimQueue, i);

    g_queue_foreach (&q->frames, (GFunc) g_free, NULL);
    g_queue_clear (&q->frames);
  }
  if (s->queues)
    g_array_unref (s->queues);
  for (i = 0; s->models && i < s->models->len; i++) {
    SimModel *m = &g_array_index (s->models, SimModel, i);

    g_queue_foreach (&m->items, (GFunc) g_free, NULL);
    g_queue_clear (&m->items);
    if (m->segments)
      g_array_unref (m->segments);
  }
  if (s->models)
    g_array_unref (s->models);
  for (i = 0; s->chips && i < s->chips->len; i++) {
    Chip *c = &g_array_index (s->chips, Chip, i);
    guint k;

    for (k = 0; c->core && k < c->cores; k++)
      g_array_unref (c->core[k].busy);
    g_free (c->core);
    for (k = 0; k < c->n_engines; k++) {
      g_free (c->engine_names[k]);
      g_array_unref (c->engine[k].busy);
    }
    g_array_unref (c->jobs);
  }
  if (s->chips)
    g_array_unref (s->chips);
  if (s->wakeups)
    g_array_unref (s->wakeups);
  if (s->latencies)
    g_array_unref (s->latencies);
  memset (s, 0, sizeof (*s));
}

/* ------------------------------------------------------------------ */
/* Building the model from the report                                   */

static gint
queue_of_element (const GstAxReport * r, const gchar * element)
{
  guint i;

  if (element == NULL)
    return -1;
  for (i = 0; i < r->queues->len; i++) {
    const GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (g_strcmp0 (q->element ? q->element : q->name, element) == 0)
      return (gint) i;
  }
  return -1;
}

static Thread *
thread_for (Sim * s, gint topo_id)
{
  Thread *t;
  guint i;

  for (i = 0; i < s->threads->len; i++) {
    t = g_ptr_array_index (s->threads, i);
    if (t->topo_id == topo_id)
      return t;
  }
  t = g_new0 (Thread, 1);
  t->topo_id = topo_id;
  t->rows = g_ptr_array_new ();
  t->row_groups = g_ptr_array_new ();
  t->in_kind = END_SOURCE;
  t->out_kind = END_SINK;
  t->in_index = t->out_index = -1;
  g_ptr_array_add (s->threads, t);
  return t;
}

/* A dependency "I" of action @self: an earlier one. */
static gboolean
parse_dep (const gchar * text, guint self, gint * dep)
{
  gchar *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);

  if (end == text || *end != '\0' || v >= self)
    return FALSE;
  *dep = (gint) v;
  return TRUE;
}

/* axinference's job-resources, "core=120000,dma=96000@0,core=35524@1"
 * (ns at time scale 1.0, each action after those it names by place),
 * into @m's segments, on its core or on @ch's engines, which they name. */
static gboolean
parse_resources (Chip * ch, SimModel * m, const gchar * spec, GError ** error)
{
  gchar **parts = g_strsplit (spec, ",", -1);
  gboolean ok = TRUE;
  guint i, k;

  for (i = 0; ok && parts[i]; i++) {
    gchar *eq = strchr (parts[i], '='), *at, *plus, *end = NULL;
    Segment seg = { -1, 0, -1, -1 };
    gdouble ns;

    ok = eq != NULL;
    if (!ok)
      break;
    *eq = '\0';
    at = strchr (eq + 1, '@');
    if (at) {
      *at = '\0';
      plus = strchr (at + 1, '+');
      if (plus)
        *plus = '\0';
      ok = parse_dep (at + 1, i, &seg.dep) && (plus == NULL ||
          parse_dep (plus + 1, i, &seg.dep2));
      if (!ok)
        break;
    }
    ns = g_ascii_strtod (eq + 1, &end);
    ok = end != eq + 1 && *end == '\0' && ns >= 0;
    if (!ok)
      break;
    if (strcmp (parts[i], "core") != 0) {
      for (k = 0; k < ch->n_engines; k++)
        if (strcmp (ch->engine_names[k], parts[i]) == 0)
          break;
      if (k == ch->n_engines) {
        ok = k < GST_AX_PROJECTION_MAX_ENGINES;
        if (!ok)
          break;
        ch->engine_names[k] = g_strdup (parts[i]);
        ch->engine[k].busy = g_array_new (FALSE, FALSE, sizeof (gdouble));
        ch->n_engines++;
      }
      seg.resource = (gint) k;
    }
    seg.ms = ns / 1e6;
    g_array_append_val (m->segments, seg);
  }
  g_strfreev (parts);
  if (!ok)
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "%s: a job's resources \"%s\" are not NAME=NS[@I[+J]],...",
        m->d->group, spec);
  return ok;
}

/* A queue's capacity in frames: the level it was held at when it was
 * ever full (whichever limit bound), else its buffer and byte limits. */
static guint
queue_capacity (const GstAxReport * r, const GstAxReportQueue * q)
{
  guint cap = G_MAXUINT;
  const GstAxReportRow *row;

  if (q->full_limit != NULL && q->max >= 1)
    return (guint) lround (q->max);
  if (q->max_size_buffers > 0)
    cap = q->max_size_buffers;
  row = gst_ax_report_find_row (r, NULL, q->element ? q->element : q->name,
      NULL);
  if (q->max_size_bytes > 0 && row && row->out_bytes > 0)
    cap = MIN (cap, MAX (1, q->max_size_bytes / row->out_bytes));
  return cap;
}

static gboolean
row_is_task_named (const GstAxReportRow * row, const gchar * suffix)
{
  return row->kind == GST_AX_REPORT_ROW_KIND_TASK &&
      g_str_has_suffix (row->name, suffix);
}

static gboolean
build (Sim * s, const GstAxReport * r, const GstAxProjectionTopology * topo,
    const GstAxProjectionConfig * c, GError ** error)
{
  guint i, j, k;

  s->r = r;
  s->threads = g_ptr_array_new_with_free_func (thread_free);
  s->queues = g_array_new (FALSE, TRUE, sizeof (SimQueue));
  s->models = g_array_new (FALSE, TRUE, sizeof (SimModel));
  s->chips = g_array_new (FALSE, TRUE, sizeof (Chip));
  s->wakeups = g_array_new (FALSE, FALSE, sizeof (gdouble));
  s->latencies = g_array_new (FALSE, FALSE, sizeof (gdouble));
  s->host_speed = c->host_speed > 0 ? c->host_speed : 1.0;
  s->busiest_sink = -1;

  /* rows onto their threads */
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);
      gint id = topo_thread (topo, g->name, row);
      Thread *t;

      if (id < 0 || row->count == 0 || row->inactive)
        continue;
      t = thread_for (s, id);
      g_ptr_array_add (t->rows, row);
      g_ptr_array_add (t->row_groups, g->name);
    }
  }
  if (s->threads->len == 0) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "the report does not say which thread ran its rows");
    return FALSE;
  }

  /* devices: one chip per simulated device, one model per report device */
  for (i = 0; i < r->devices->len; i++) {
    const GstAxReportDevice *d =
        &g_array_index (r->devices, GstAxReportDevice, i);
    const TopoDevice *td = NULL;
    SimModel m = { 0, };
    gdouble run_scale, job_ms, scale = c->time_scale > 0 ? c->time_scale : 1.0;
    const gchar *resources;
    SimModel *mp;
    Chip *ch;
    guint chip = d->occupancy_index > 0 ? d->occupancy_index - 1 : i;

    for (k = 0; k < topo->devices->len; k++) {
      const TopoDevice *x = &g_array_index (topo->devices, TopoDevice, k);

      if (k == i && g_strcmp0 (x->group, d->group) == 0)
        td = x;
    }
    if (td == NULL) {
      g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
          "the report does not say which element drove %s", d->group);
      return FALSE;
    }
    run_scale = td->time_scale;
    if (run_scale <= 0 || d->device_ms <= 0) {
      g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
          "%s ran at time-scale %g: its jobs took no modelled time to "
          "project from", d->group, run_scale);
      return FALSE;
    }
    job_ms = d->device_ms / run_scale;
    resources = td->resources;
    if (c->resources && i < c->n_resources && c->resources[i])
      resources = c->resources[i];
    m.d = d;
    m.device_index = i;
    m.element = td->element;
    m.chip = chip;
    m.window = c->in_flight > 0 ? c->in_flight : MAX (d->in_flight_window, 1);
    m.submitter = m.output = -1;
    while (s->chips->len <= chip) {
      Chip fresh = { 0, };

      fresh.jobs = g_array_new (FALSE, FALSE, sizeof (gdouble));
      g_array_append_val (s->chips, fresh);
    }
    ch = &g_array_index (s->chips, Chip, chip);
    ch->cores = MAX (ch->cores, c->cores > 0 ? c->cores : d->n_cores);
    ch->cores = MAX (ch->cores, 1);
    m.segments = g_array_new (FALSE, FALSE, sizeof (Segment));
    g_array_append_val (s->models, m);
    mp = &g_array_index (s->models, SimModel, s->models->len - 1);
    if (resources && !parse_resources (ch, mp, resources, error))
      return FALSE;
    if (mp->segments->len == 0) {
      /* without the job's resources, the whole job on its core */
      Segment whole = { -1, job_ms, -1, -1 };

      g_array_append_val (mp->segments, whole);
    }
    for (k = 0; k < mp->segments->len; k++) {
      Segment *seg = &g_array_index (mp->segments, Segment, k);

      seg->ms *= scale;
      mp->job_ms += seg->ms;
    }
  }
  for (i = 0; i < s->chips->len; i++) {
    Chip *ch = &g_array_index (s->chips, Chip, i);

    guint k;

    ch->cores = MAX (ch->cores, 1);
    ch->core = g_new0 (Resource, ch->cores);
    for (k = 0; k < ch->cores; k++)
      ch->core[k].busy = g_array_new (FALSE, FALSE, sizeof (gdouble));
  }

  for (i = 0; i < r->queues->len; i++) {
    SimQueue q = { 0, };

    q.q = &g_array_index (r->queues, GstAxReportQueue, i);
    q.queue_index = i;
    q.capacity = queue_capacity (r, q.q);
    q.producer = q.consumer = -1;
    g_queue_init (&q.frames);
    g_array_append_val (s->queues, q);
  }

  /* each thread's service, input and output */
  for (i = 0; i < s->threads->len; i++) {
    Thread *t = g_ptr_array_index (s->threads, i);
    gdouble cpu_total = 0, src_total = 0;
    gdouble *stages = g_new0 (gdouble, s->models->len + 1);

    for (j = 0; j < t->rows->len; j++) {
      GstAxReportRow *row = g_ptr_array_index (t->rows, j);
      const gchar *group = g_ptr_array_index (t->row_groups, j);
      gint qi = queue_of_element (r, row->element);

      if (row->kind != GST_AX_REPORT_ROW_KIND_REPORTED)
        t->frames_through = MAX (t->frames_through, (gdouble) row->count);
      cpu_total += row->cpu_ms * row->count;
      if (row_is_task_named (row, "(create)"))
        src_total += row->cpu_ms * row->count;
      if (qi >= 0) {
        SimQueue *q = &g_array_index (s->queues, SimQueue, qi);

        if (row->kind == GST_AX_REPORT_ROW_KIND_TASK) {
          t->in_kind = END_QUEUE;
          t->in_index = qi;
          t->in_row = row;
          q->consumer = (gint) i;
        } else if (row->kind == GST_AX_REPORT_ROW_KIND_ELEMENT &&
            t->out_kind == END_SINK) {
          t->out_kind = END_QUEUE;
          t->out_index = qi;
          t->out_row = row;
          q->producer = (gint) i;
        }
        continue;
      }
      for (k = 0; k < s->models->len; k++) {
        SimModel *m = &g_array_index (s->models, SimModel, k);

        if (g_strcmp0 (row->element, m->element) != 0 ||
            g_strcmp0 (group, m->d->group) != 0)
          continue;
        if (row->kind == GST_AX_REPORT_ROW_KIND_TASK) {
          t->in_kind = END_MODEL;
          t->in_index = (gint) k;
          t->in_row = row;
          m->output = (gint) i;
        } else if (row->kind == GST_AX_REPORT_ROW_KIND_ELEMENT &&
            t->out_kind == END_SINK) {
          t->out_kind = END_MODEL;
          t->out_index = (gint) k;
          t->out_row = row;
          m->submitter = (gint) i;
          m->frames_in = row->count;
        } else if (row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT) {
          t->device_wait_row = row;
        } else if (row->kind == GST_AX_REPORT_ROW_KIND_REPORTED) {
          stages[k] += row->cpu_ms * row->count;
        }
      }
    }
    if (t->out_kind == END_MODEL && t->frames_through > 0)
      t->in_window_ms = stages[t->out_index] / t->frames_through;
    g_free (stages);
    if (t->frames_through <= 0) {
      g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
          "thread %d ran only reported stages", t->topo_id);
      return FALSE;
    }
    t->service_ms = cpu_total / t->frames_through - t->in_window_ms;
    t->src_ms = src_total / t->frames_through;
  }
  /* the frames are counted at the report's sinks */
  for (i = 0; r->frames_sink && i < s->threads->len; i++) {
    Thread *t = g_ptr_array_index (s->threads, i);
    gboolean counted = FALSE;

    for (j = 0; j < t->rows->len && !counted; j++) {
      const GstAxReportRow *row = g_ptr_array_index (t->rows, j);

      counted = g_strcmp0 (row->element, r->frames_sink) == 0;
      for (k = 0; k < r->streams->len && !counted; k++)
        counted = g_strcmp0 (row->element, g_array_index (r->streams,
                GstAxReportStream, k).sink) == 0;
    }
    if (t->out_kind == END_SINK && !counted)
      t->out_kind = END_NONE;
  }
  for (k = 0; k < s->models->len; k++) {
    SimModel *m = &g_array_index (s->models, SimModel, k);

    if (m->submitter < 0 || m->output < 0) {
      g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
          "the report does not say which threads submit to and push from "
          "%s (%s)", m->d->group, m->element);
      return FALSE;
    }
    m->jobs_per_frame = m->frames_in > 0 ?
        (gdouble) m->d->jobs / m->frames_in : 1.0;
    g_queue_init (&m->items);
  }
  for (i = 0; i < s->queues->len; i++) {
    SimQueue *q = &g_array_index (s->queues, SimQueue, i);

    /* a queue the model cannot place links nothing it runs */
    if (q->producer < 0 || q->consumer < 0) {
      if (q->producer >= 0) {
        Thread *t = g_ptr_array_index (s->threads, q->producer);

        t->out_kind = END_SINK;
      }
      if (q->consumer >= 0) {
        Thread *t = g_ptr_array_index (s->threads, q->consumer);

        t->in_kind = END_SOURCE;
      }
    }
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Simulation                                                           */

static void
wakeup_at (Sim * s, gdouble t_ms)
{
  GArray *h = s->wakeups;
  guint i;

  g_array_append_val (h, t_ms);
  i = h->len - 1;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    gdouble *a = &g_array_index (h, gdouble, parent);
    gdouble *b = &g_array_index (h, gdouble, i);
    gdouble tmp;

    if (*a <= *b)
      break;
    tmp = *a;
    *a = *b;
    *b = tmp;
    i = parent;
  }
}

static gboolean
next_wakeup (Sim * s, gdouble * t_ms)
{
  GArray *h = s->wakeups;
  guint i = 0;

  if (h->len == 0)
    return FALSE;
  *t_ms = g_array_index (h, gdouble, 0);
  g_array_index (h, gdouble, 0) = g_array_index (h, gdouble, h->len - 1);
  g_array_set_size (h, h->len - 1);
  for (;;) {
    guint l = 2 * i + 1, rr = l + 1, m = i;
    gdouble tmp;

    if (l < h->len && g_array_index (h, gdouble, l) <
        g_array_index (h, gdouble, m))
      m = l;
    if (rr < h->len && g_array_index (h, gdouble, rr) <
        g_array_index (h, gdouble, m))
      m = rr;
    if (m == i)
      break;
    tmp = g_array_index (h, gdouble, i);
    g_array_index (h, gdouble, i) = g_array_index (h, gdouble, m);
    g_array_index (h, gdouble, m) = tmp;
    i = m;
  }
  return TRUE;
}

static void
level_advance (Sim * s, Level * l)
{
  gdouble dt = s->now_ms - l->last_ms;

  if (s->measuring && dt > 0) {
    l->area += l->level * dt;
    if (l->cap > 0 && l->level >= l->cap)
      l->full_ms += dt;
    if (l->level <= 0)
      l->empty_ms += dt;
  }
  l->last_ms = s->now_ms;
}

static void
level_set (Sim * s, Level * l, gdouble level)
{
  level_advance (s, l);
  l->level = level;
  if (s->measuring)
    l->max = MAX (l->max, level);
}

static void
level_reset (Sim * s, Level * l)
{
  l->last_ms = s->now_ms;
  l->area = l->full_ms = l->empty_ms = 0;
  l->max = l->level;
}

static void
for_each_level (Sim * s, void (*func) (Sim *, Level *))
{
  guint i;

  for (i = 0; i < s->threads->len; i++) {
    Thread *t = g_ptr_array_index (s->threads, i);

    func (s, &t->busy);
    func (s, &t->blocked);
    func (s, &t->wait_empty);
    func (s, &t->wait_device);
  }
  for (i = 0; i < s->queues->len; i++)
    func (s, &g_array_index (s->queues, SimQueue, i).level);
  for (i = 0; i < s->models->len; i++) {
    SimModel *m = &g_array_index (s->models, SimModel, i);

    func (s, &m->depth);
    func (s, &m->held);
  }
}

static void
thread_state (Sim * s, Thread * t, ThreadState state, gboolean device_wait)
{
  t->state = state;
  level_set (s, &t->busy, state == T_BUSY);
  level_set (s, &t->blocked, state == T_BLOCKED);
  level_set (s, &t->wait_empty, state == T_WAIT && !device_wait);
  level_set (s, &t->wait_device, state == T_WAIT && device_wait);
}

static guint
model_frame_jobs (SimModel * m, guint64 n)
{
  return (guint) (floor ((n + 1) * m->jobs_per_frame + 1e-9) -
      floor (n * m->jobs_per_frame + 1e-9));
}

static void
model_depth_update (Sim * s, SimModel * m)
{
  GList *l;
  guint held = 0;

  for (l = m->items.head; l; l = l->next) {
    Item *it = l->data;

    if (it->n_done == it->n_jobs && it->done_ms <= s->now_ms)
      held++;
  }
  level_set (s, &m->depth, m->items.length);
  level_set (s, &m->held, held);
}

static void
prune (Resource * r, gdouble now_ms)
{
  GArray *b = r->busy;
  guint drop = 0;

  while (drop + 1 < b->len && g_array_index (b, gdouble, drop + 1) <= now_ms)
    drop += 2;
  if (drop > 0)
    g_array_remove_range (b, 0, drop);
}

/* Reserves @ms of @r from @from_ms and returns where it starts; *end_ms
 * is where it ends. Reservations are never moved, so a later job only
 * uses the gaps earlier ones left: a compute action needs a gap as long
 * as itself, a transfer (@split) may be spread over several, as a DMA
 * engine interleaves descriptor chains. */
static gdouble
reserve (Resource * r, gdouble from_ms, gdouble ms, gboolean split,
    gdouble now_ms, gdouble * end_ms)
{
  GArray *b = r->busy;
  gdouble t = from_ms, left = ms, first = -1;
  guint i = 0;

  prune (r, now_ms);
  if (ms <= 0) {
    *end_ms = from_ms;
    return from_ms;
  }
  while (left > 0) {
    gdouble gap_end = G_MAXDOUBLE, piece, pair[2];

    /* the first reservation that ends after t */
    while (i + 1 < b->len && g_array_index (b, gdouble, i + 1) <= t)
      i += 2;
    if (i + 1 < b->len) {
      gdouble bs = g_array_index (b, gdouble, i);

      if (bs <= t) {
        t = g_array_index (b, gdouble, i + 1);
        i += 2;
        continue;
      }
      gap_end = bs;
    }
    if (!split && gap_end - t < left) {
      t = g_array_index (b, gdouble, i + 1);
      i += 2;
      continue;
    }
    piece = MIN (left, gap_end - t);
    pair[0] = t;
    pair[1] = t + piece;
    g_array_insert_vals (b, i, pair, 2);
    i += 2;
    if (first < 0)
      first = t;
    left -= piece;
    t += piece;
  }
  *end_ms = t;
  r->last_end_ms = MAX (r->last_end_ms, t);
  return first;
}

/* One job from @from_ms, as sim-npu places it: each action once those
 * it waits for have ended, in the earliest gap of its resource, on the
 * core that frees up first. Returns its end. */
static gdouble
job_place (Sim * s, SimModel * m, Chip * ch, gdouble from_ms)
{
  gdouble first = G_MAXDOUBLE, last = from_ms, span[2];
  gdouble *ends = g_new (gdouble, MAX (m->segments->len, 1));
  guint best = 0, c, k;

  for (c = 1; c < ch->cores; c++)
    if (ch->core[c].last_end_ms < ch->core[best].last_end_ms)
      best = c;
  for (k = 0; k < m->segments->len; k++) {
    const Segment *seg = &g_array_index (m->segments, Segment, k);
    Resource *r = seg->resource < 0 ? &ch->core[best] :
        &ch->engine[seg->resource];
    gdouble ready = from_ms, st;

    if (seg->dep >= 0)
      ready = MAX (ready, ends[seg->dep]);
    if (seg->dep2 >= 0)
      ready = MAX (ready, ends[seg->dep2]);
    st = reserve (r, ready, seg->ms, seg->resource >= 0, s->now_ms, &ends[k]);
    first = MIN (first, st);
    last = MAX (last, ends[k]);
  }
  g_free (ends);
  if (first > last)
    first = last;
  span[0] = first;
  span[1] = last;
  g_array_append_vals (ch->jobs, span, 2);
  if (s->measuring) {
    m->span_sum_ms += last - first;
    m->spans++;
  }
  return last;
}

/* Submits @frame's jobs to @m's device; the jobs of a frame larger than
 * the window go as the earlier ones complete. Returns when the thread is
 * free again. */
static gdouble
model_submit (Sim * s, SimModel * m, const Frame * frame, guint n_jobs,
    gdouble stages_ms)
{
  Chip *ch = &g_array_index (s->chips, Chip, m->chip);
  Item *it = g_new0 (Item, 1);
  gdouble *ends = g_new0 (gdouble, MAX (n_jobs, 1));
  gdouble start_ms = s->now_ms + stages_ms, free_ms = start_ms;
  guint j;

  it->frame = *frame;
  it->n_jobs = n_jobs;
  it->done_ms = start_ms;
  for (j = 0; j < n_jobs; j++) {
    gdouble submit_ms = j >= m->window ? ends[j - m->window] : start_ms;

    ends[j] = job_place (s, m, ch, submit_ms);
    it->done_ms = MAX (it->done_ms, ends[j]);
    free_ms = MAX (free_ms, submit_ms);
  }
  it->n_done = n_jobs;
  g_queue_push_tail (&m->items, it);
  m->outstanding += n_jobs;
  m->frames_submitted++;
  g_free (ends);
  if (it->done_ms > s->now_ms)
    wakeup_at (s, it->done_ms);
  model_depth_update (s, m);
  return free_ms;
}

static void
at_sink (Sim * s, Thread * t, gint ti)
{
  gdouble latency = s->now_ms - t->frame.enter_ms;

  t->at_sink++;
  s->sink_frames_total++;
  if (s->serial)
    s->in_pipeline--;
  if (s->busiest_sink < 0 || ti == s->busiest_sink) {
    s->busiest_sink = ti;
    if (t->at_sink == s->sink_target_t0 && !s->measuring && s->t0_ms == 0) {
      for_each_level (s, level_advance);
      s->measuring = TRUE;
      s->t0_ms = s->now_ms;
      for_each_level (s, level_reset);
    } else if (t->at_sink == s->sink_target_t1 && s->measuring) {
      for_each_level (s, level_advance);
      s->measuring = FALSE;
      s->t1_ms = s->now_ms;
    }
  }
  if (s->measuring || s->serial)
    g_array_append_val (s->latencies, latency);
}

/* Moves thread @ti as far as it can at the current time. */
static gboolean
thread_step (Sim * s, gint ti)
{
  Thread *t = g_ptr_array_index (s->threads, ti);
  gboolean moved = FALSE;

  for (;;) {
    if (t->state == T_WAIT) {
      gboolean got = FALSE, device_wait = FALSE;

      if (t->in_kind == END_SOURCE) {
        if (t->produced < s->frames_per_source &&
            (!s->serial || s->in_pipeline == 0)) {
          t->produced++;
          t->frame.enter_ms = s->now_ms + t->src_ms / s->host_speed;
          t->frame.source = ti;
          if (s->serial)
            s->in_pipeline++;
          got = TRUE;
        } else if (t->produced >= s->frames_per_source) {
          thread_state (s, t, T_DONE, FALSE);
          return moved;
        }
      } else if (t->in_kind == END_QUEUE) {
        SimQueue *q = &g_array_index (s->queues, SimQueue, t->in_index);
        Frame *f = g_queue_pop_head (&q->frames);

        if (f) {
          t->frame = *f;
          g_free (f);
          level_set (s, &q->level, q->frames.length);
          got = TRUE;
        }
      } else if (t->in_kind == END_MODEL) {
        SimModel *m = &g_array_index (s->models, SimModel, t->in_index);
        Item *it = g_queue_peek_head (&m->items);

        if (it && it->done_ms <= s->now_ms) {
          g_queue_pop_head (&m->items);
          m->outstanding -= it->n_jobs;
          t->frame = it->frame;
          g_free (it);
          model_depth_update (s, m);
          got = TRUE;
        } else if (it) {
          device_wait = TRUE;
        }
      }
      if (!got) {
        if (t->wait_device.level != (device_wait ? 1 : 0) ||
            t->busy.level > 0 || t->blocked.level > 0)
          thread_state (s, t, T_WAIT, device_wait);
        return moved;
      }
      moved = TRUE;
      t->processed++;
      if (s->measuring)
        t->processed_measured++;
      t->until_ms = s->now_ms + t->service_ms / s->host_speed;
      thread_state (s, t, T_BUSY, FALSE);
      if (t->until_ms > s->now_ms) {
        wakeup_at (s, t->until_ms);
        return moved;
      }
    }
    if (t->state == T_BUSY) {
      if (t->until_ms > s->now_ms)
        return moved;
      thread_state (s, t, T_BLOCKED, FALSE);
    }
    if (t->state == T_BLOCKED && t->handed) {
      if (t->until_ms > s->now_ms)
        return moved;
      t->handed = FALSE;
      moved = TRUE;
      thread_state (s, t, T_WAIT, FALSE);
      continue;
    } else if (t->state == T_BLOCKED) {
      if (t->out_kind == END_NONE) {
        if (s->serial)
          s->in_pipeline--;
      } else if (t->out_kind == END_SINK) {
        at_sink (s, t, ti);
      } else if (t->out_kind == END_QUEUE) {
        SimQueue *q = &g_array_index (s->queues, SimQueue, t->out_index);

        if (q->frames.length >= q->capacity)
          return moved;
        g_queue_push_tail (&q->frames, g_memdup2 (&t->frame, sizeof (Frame)));
        level_set (s, &q->level, q->frames.length);
      } else if (t->out_kind == END_MODEL) {
        SimModel *m = &g_array_index (s->models, SimModel, t->out_index);
        guint n_jobs = model_frame_jobs (m, m->frames_submitted);
        gdouble free_ms;

        if (m->outstanding > 0 && m->outstanding + n_jobs > m->window)
          return moved;
        free_ms = model_submit (s, m, &t->frame, n_jobs,
            t->in_window_ms / s->host_speed);
        if (free_ms > s->now_ms) {
          /* the frame is in the window: the model's own stages still run
           * on this thread, and its jobs beyond the window go as the
           * earlier ones complete */
          t->until_ms = free_ms;
          t->handed = TRUE;
          wakeup_at (s, free_ms);
          return TRUE;
        }
      }
      moved = TRUE;
      thread_state (s, t, T_WAIT, FALSE);
    }
    if (t->state == T_DONE)
      return moved;
  }
}

static void
sim_run (Sim * s, guint frames_per_source, gboolean serial)
{
  guint i;
  gboolean moved;
  gdouble t;

  s->frames_per_source = frames_per_source;
  s->serial = serial;
  for (i = 0; i < s->threads->len; i++) {
    Thread *th = g_ptr_array_index (s->threads, i);

    th->state = T_WAIT;
    th->wait_empty.level = 1;
  }
  for (i = 0; i < s->queues->len; i++) {
    SimQueue *q = &g_array_index (s->queues, SimQueue, i);

    q->level.cap = q->capacity;
  }
  for (i = 0; i < s->models->len; i++) {
    SimModel *m = &g_array_index (s->models, SimModel, i);

    m->depth.cap = m->window;
  }
  /* the busiest sink gets one source's frames: its edges are a tenth of
   * them */
  s->sink_target_t0 = MAX (1, (guint) (frames_per_source *
          GST_AX_PROJECTION_EDGE_FRACTION));
  s->sink_target_t1 = MAX (s->sink_target_t0 + 1, (guint) (frames_per_source
          * (1.0 - GST_AX_PROJECTION_EDGE_FRACTION)));
  for (;;) {
    do {
      moved = FALSE;
      for (i = 0; i < s->threads->len; i++)
        moved |= thread_step (s, (gint) i);
    } while (moved);
    do {
      if (!next_wakeup (s, &t))
        return;
    } while (t <= s->now_ms);
    s->now_ms = t;
  }
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median (GArray * a)
{
  if (a->len == 0)
    return 0;
  g_array_sort (a, compare_doubles);
  return g_array_index (a, gdouble, a->len / 2);
}

static gdouble
chip_busy_ms (const Chip * ch, gdouble t0, gdouble t1)
{
  gdouble busy = 0;
  guint i;

  for (i = 0; i + 1 < ch->jobs->len; i += 2) {
    gdouble a = MAX (g_array_index (ch->jobs, gdouble, i), t0);
    gdouble b = MIN (g_array_index (ch->jobs, gdouble, i + 1), t1);

    if (b > a)
      busy += b - a;
  }
  return busy;
}

/* ------------------------------------------------------------------ */
/* The report the model would have made, and its verdict                */

static GstAxReport *
report_copy (const GstAxReport * r)
{
  gchar *json = gst_ax_report_to_json (r);
  GstAxReport *c = gst_ax_report_new_from_json (json, NULL);

  g_free (json);
  if (c) {
    gst_ax_report_projection_free (c->projection);
    c->projection = NULL;
  }
  return c;
}

static GstAxReportRow *
copy_row (GstAxReport * c, const GstAxReport * r, const GstAxReportRow * row)
{
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++)
      if (&g_array_index (g->rows, GstAxReportRow, j) == row) {
        GstAxReportGroup *cg = g_ptr_array_index (c->groups, i);

        return &g_array_index (cg->rows, GstAxReportRow, j);
      }
  }
  return NULL;
}

static void
add_wait (GstAxReportRow * row, gdouble total_ms)
{
  if (row == NULL || total_ms <= 0)
    return;
  row->total_ms += total_ms;
}

static void
fill_projected_report (Sim * s, GstAxReport * c, gdouble span_ms)
{
  const GstAxReport *r = s->r;
  gdouble host_cpu_ms = 0;
  guint i, j;

  /* rows: the model's per-frame service and waits over the span */
  for (i = 0; i < c->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (c->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      row->total_ms = 0;
      row->cpu_wait_ms = 0;
    }
  }
  for (i = 0; i < s->threads->len; i++) {
    Thread *t = g_ptr_array_index (s->threads, i);
    gdouble scale = t->processed_measured / t->frames_through;

    for (j = 0; j < t->rows->len; j++) {
      const GstAxReportRow *orig = g_ptr_array_index (t->rows, j);
      GstAxReportRow *row = copy_row (c, r, orig);

      if (row == NULL)
        continue;
      row->count = MAX ((guint64) llround (orig->count * scale), 1);
      row->cpu_ms = orig->cpu_ms / s->host_speed;
      row->total_ms += row->cpu_ms * row->count;
      host_cpu_ms += row->cpu_ms * row->count;
    }
    add_wait (copy_row (c, r, t->out_row), t->blocked.area);
    add_wait (copy_row (c, r, t->in_row), t->wait_empty.area);
    add_wait (copy_row (c, r, t->device_wait_row ? t->device_wait_row :
            t->in_row), t->wait_device.area);
  }
  for (i = 0; i < c->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (c->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->count > 0)
        row->mean_ms = row->total_ms / row->count;
      row->min_ms = row->max_ms = row->mean_ms;
      gst_ax_report_row_classify (row);
    }
  }
  gst_ax_report_finish_groups (c);

  /* throughput */
  c->frames = s->sink_target_t1 - s->sink_target_t0;
  c->wall_s = span_ms / MS_PER_S;
  c->fps = c->frames / c->wall_s;
  c->cores_used = host_cpu_ms / span_ms;
  c->cpu_percent = PERCENT * c->cores_used;
  c->have_sim_cpu = FALSE;
  c->sim_cpu_percent = 0;
  c->simulator_cpu_ms = 0;
  g_ptr_array_set_size (c->warnings, 0);
  c->latency.p50_ms = median (s->latencies);

  for (i = 0; i < s->queues->len && i < c->queues->len; i++) {
    SimQueue *q = &g_array_index (s->queues, SimQueue, i);
    GstAxReportQueue *cq = &g_array_index (c->queues, GstAxReportQueue, i);

    if (q->producer < 0 || q->consumer < 0)
      continue;
    cq->mean = q->level.area / span_ms;
    cq->min = 0;
    cq->max = q->level.max;
    cq->full_percent = PERCENT * q->level.full_ms / span_ms;
    cq->empty_percent = PERCENT * q->level.empty_ms / span_ms;
    cq->at_max_percent = cq->max_size_buffers == q->capacity ?
        cq->full_percent : 0;
  }

  for (i = 0; i < s->models->len; i++) {
    SimModel *m = &g_array_index (s->models, SimModel, i);
    GstAxReportDevice *d = &g_array_index (c->devices, GstAxReportDevice,
        m->device_index);
    Chip *ch = &g_array_index (s->chips, Chip, m->chip);
    gdouble jobs = (c->frames) * m->jobs_per_frame;

    d->device_ms = m->spans ? m->span_sum_ms / m->spans : m->job_ms;
    d->in_flight_window = m->window;
    d->n_cores = ch->cores;
    d->depth = m->depth.area / span_ms;
    d->held_depth = m->held.area / span_ms;
    d->lag_ms = 0;
    d->sim_cpu_ms = 0;
    d->occupancy_percent = PERCENT * jobs * d->device_ms /
        (ch->cores * span_ms);
    d->jobs = d->frames = (guint64) llround (jobs);
  }
  for (i = 0; i < s->chips->len && i < c->device_occupancy->len; i++) {
    Chip *ch = &g_array_index (s->chips, Chip, i);
    GstAxReportDeviceOccupancy *o = &g_array_index (c->device_occupancy,
        GstAxReportDeviceOccupancy, i);

    o->n_cores = ch->cores;
    o->busy_ms = chip_busy_ms (ch, s->t0_ms, s->t1_ms);
    o->window_s = span_ms / MS_PER_S;
    o->occupancy_percent = PERCENT * o->busy_ms / (ch->cores * span_ms);
    o->sim_cpu_ms = 0;
  }
}

static gchar *
what_if_text (const GstAxReport * r, const GstAxProjectionConfig * c)
{
  GString *s = g_string_new (NULL);

  if (c->in_flight > 0)
    g_string_append_printf (s, "%sin-flight=%u", s->len ? "," : "",
        c->in_flight);
  if (c->cores > 0)
    g_string_append_printf (s, "%scores=%u", s->len ? "," : "", c->cores);
  if (c->device)
    g_string_append_printf (s, "%sdevice=%s", s->len ? "," : "", c->device);
  if (c->host_speed > 0 && c->host_speed != 1.0)
    g_string_append_printf (s, "%shost-speed=%g", s->len ? "," : "",
        c->host_speed);
  if (s->len == 0) {
    g_string_free (s, TRUE);
    return NULL;
  }
  return g_string_free (s, FALSE);
}

GstAxReportProjection *
gst_ax_report_project (const GstAxReport * report,
    const GstAxProjectionConfig * config, GError ** error)
{
  GstAxProjectionConfig dflt = { 0, };
  const GstAxProjectionConfig *c = config ? config : &dflt;
  const GstAxProjectionTopology *topo;
  GstAxReportProjection *p;
  GstAxReport *copy;
  GstAxReportVerdict *v;
  Sim s = { 0, };
  gdouble span_ms, serial_p50 = 0;
  guint i;

  g_return_val_if_fail (report != NULL, NULL);

  topo = report->projection ? report->projection->topology : NULL;
  if (report->refusal || report->devices->len == 0) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "no model ran: there is no device to project onto");
    return NULL;
  }
  if (topo == NULL) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "the report carries no topology (it was made by a version that "
        "did not record it)");
    return NULL;
  }
  if (!build (&s, report, topo, c, error)) {
    sim_clear (&s);
    return NULL;
  }
  if (report->latency_serial) {
    Sim serial = { 0, };

    build (&serial, report, topo, c, NULL);
    sim_run (&serial, GST_AX_PROJECTION_SERIAL_FRAMES, TRUE);
    serial_p50 = median (serial.latencies);
    sim_clear (&serial);
  }
  sim_run (&s, GST_AX_PROJECTION_FRAMES, FALSE);
  span_ms = s.t1_ms - s.t0_ms;
  if (s.t1_ms <= 0 || span_ms <= 0) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "the model of the pipeline brought no frames to a sink: its threads "
        "do not link from a source to a sink");
    sim_clear (&s);
    return NULL;
  }

  copy = report_copy (report);
  if (copy == NULL) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
        "the report does not copy");
    sim_clear (&s);
    return NULL;
  }
  fill_projected_report (&s, copy, span_ms);
  /* the verdict names the device profile projected onto */
  for (i = 0; c->device && i < copy->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (copy->devices, GstAxReportDevice,
        i);

    g_free (d->device);
    d->device = g_strdup (c->device);
  }
  for (i = 0; c->device && i < copy->device_occupancy->len; i++) {
    GstAxReportDeviceOccupancy *o = &g_array_index (copy->device_occupancy,
        GstAxReportDeviceOccupancy, i);

    g_free (o->device);
    o->device = g_strdup (c->device);
  }
  if (report->latency_serial)
    copy->latency.p50_ms = serial_p50;
  v = gst_ax_report_make_verdict (copy);

  p = g_new0 (GstAxReportProjection, 1);
  p->time_scale = c->time_scale > 0 ? c->time_scale : 1.0;
  p->host_speed = c->host_speed > 0 ? c->host_speed : 1.0;
  p->what_if = what_if_text (report, c);
  p->fps = copy->fps;
  p->latency_p50_ms = copy->latency.p50_ms;
  for (i = 0; i < copy->device_occupancy->len; i++)
    p->occupancy_percent = MAX (p->occupancy_percent,
        g_array_index (copy->device_occupancy, GstAxReportDeviceOccupancy,
            i).occupancy_percent);
  p->kind = v->kind;
  p->element = g_strdup (v->element);
  p->row = g_strdup (v->row);
  p->queue = g_strdup (v->queue);
  p->model = g_strdup (v->model);
  p->constraint = g_strdup (v->constraint);
  gst_ax_report_verdict_free (v);
  gst_ax_report_unref (copy);
  sim_clear (&s);
  return p;
}

void
gst_ax_report_projection_free (GstAxReportProjection * projection)
{
  if (projection == NULL)
    return;
  g_free (projection->what_if);
  g_free (projection->element);
  g_free (projection->row);
  g_free (projection->queue);
  g_free (projection->model);
  g_free (projection->constraint);
  gst_ax_projection_topology_free (projection->topology);
  g_free (projection);
}

void
gst_ax_report_attach_projection (GstAxReport * report,
    GstAxProjectionTopology * topology)
{
  GstAxReportProjection *p;
  GError *err = NULL;

  if (report->refusal || report->devices->len == 0) {
    gst_ax_projection_topology_free (topology);
    return;
  }
  gst_ax_report_projection_free (report->projection);
  /* the topology travels with the report, for what-if projections */
  report->projection = g_new0 (GstAxReportProjection, 1);
  report->projection->topology = topology;
  p = gst_ax_report_project (report, NULL, &err);
  if (p == NULL) {
    p = g_new0 (GstAxReportProjection, 1);
    p->time_scale = p->host_speed = 1.0;
    p->kind = GST_AX_REPORT_CONSTRAINT_UNDETERMINED;
    p->constraint = g_strdup_printf ("not projected: %s", err->message);
    g_clear_error (&err);
  }
  p->topology = report->projection->topology;
  report->projection->topology = NULL;
  gst_ax_report_projection_free (report->projection);
  report->projection = p;
}

/**
 * gst_ax_report_get_projection:
 * @report: a report
 *
 * What the pipeline would do on the modelled device: its fps, latency,
 * device occupancy and constraint if every device job took its modelled
 * time, the host's rows as measured on this host.
 *
 * Returns: (transfer none) (nullable): the projection, %NULL when no
 *   model ran (or the report was made by a version without it)
 *
 * Since: 0.2
 */
const GstAxReportProjection *
gst_ax_report_get_projection (const GstAxReport * report)
{
  g_return_val_if_fail (report != NULL, NULL);

  return report->projection;
}

/* ------------------------------------------------------------------ */
/* Text, JSON, verdict                                                  */

static gboolean
projected (const GstAxReportProjection * p)
{
  return p->kind != GST_AX_REPORT_CONSTRAINT_UNDETERMINED || p->fps > 0;
}

gchar *
gst_ax_report_projection_to_text (const GstAxReportProjection * p)
{
  GString *s = g_string_new (NULL);

  g_string_append (s, "On the modelled device (every device job at its "
      "modelled time");
  if (p->time_scale != 1.0)
    g_string_append_printf (s, " x %g", p->time_scale);
  if (p->what_if)
    g_string_append_printf (s, ", %s", p->what_if);
  g_string_append_printf (s, "; host rows %s, without the simulator's "
      "threads; queues, threads and in-flight windows as set):\n",
      p->host_speed != 1.0 ? "scaled from this host's" : "as measured on "
      "this host");
  if (!projected (p)) {
    g_string_append_printf (s, "  %s\n", p->constraint ? p->constraint :
        "not projected");
    return g_string_free (s, FALSE);
  }
  g_string_append_printf (s, "  %.1f fps  latency p50 %.2f ms  device "
      "occupancy %.1f%%\n", p->fps, p->latency_p50_ms, p->occupancy_percent);
  g_string_append_printf (s, "  the constraint would be %s\n",
      p->constraint ? p->constraint : "undetermined");
  return g_string_free (s, FALSE);
}

void
gst_ax_projection_append_text (const GstAxReport * report, GString * s)
{
  gchar *text;

  if (report->projection == NULL)
    return;
  text = gst_ax_report_projection_to_text (report->projection);
  g_string_append (s, text);
  g_free (text);
}

static void
json_str (JsonBuilder * b, const gchar * name, const gchar * v)
{
  json_builder_set_member_name (b, name);
  if (v)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
json_num (JsonBuilder * b, const gchar * name, gdouble v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, v);
}

void
gst_ax_projection_to_json (const GstAxReport * report, JsonBuilder * b)
{
  const GstAxReportProjection *p = report->projection;
  const GstAxProjectionTopology *t;
  guint i;

  json_builder_set_member_name (b, "projection");
  json_builder_begin_object (b);
  if (p == NULL) {
    /* an interval's report (axprof's interval=) is not projected */
    json_str (b, "absent", report->devices->len > 0 ? "not projected: "
        "the report is not of a whole run" : "no model ran");
    json_builder_end_object (b);
    return;
  }
  json_num (b, "time_scale", p->time_scale);
  json_num (b, "host_speed", p->host_speed);
  json_str (b, "what_if", p->what_if);
  json_num (b, "fps", p->fps);
  json_num (b, "latency_p50_ms", p->latency_p50_ms);
  json_num (b, "occupancy_percent", p->occupancy_percent);
  json_str (b, "kind", gst_ax_report_constraint_kind_to_string (p->kind));
  json_str (b, "element", p->element);
  json_str (b, "row", p->row);
  json_str (b, "queue", p->queue);
  json_str (b, "model", p->model);
  json_str (b, "constraint", p->constraint);
  t = p->topology;
  json_builder_set_member_name (b, "topology");
  if (t == NULL) {
    json_builder_add_null_value (b);
  } else {
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "rows");
    json_builder_begin_array (b);
    for (i = 0; i < t->rows->len; i++) {
      const TopoRow *r = &g_array_index (t->rows, TopoRow, i);

      json_builder_begin_object (b);
      json_str (b, "group", r->group);
      json_str (b, "element", r->element);
      json_str (b, "row", r->row);
      json_builder_set_member_name (b, "thread");
      json_builder_add_int_value (b, r->thread);
      json_builder_end_object (b);
    }
    json_builder_end_array (b);
    json_builder_set_member_name (b, "devices");
    json_builder_begin_array (b);
    for (i = 0; i < t->devices->len; i++) {
      const TopoDevice *d = &g_array_index (t->devices, TopoDevice, i);

      json_builder_begin_object (b);
      json_str (b, "group", d->group);
      json_str (b, "element", d->element);
      json_num (b, "time_scale", d->time_scale);
      json_str (b, "resources", d->resources);
      json_builder_end_object (b);
    }
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  json_builder_end_object (b);
}

static gboolean
invalid (GError ** error, const gchar * member)
{
  g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
      "report JSON: projection.%s is missing or of the wrong type", member);
  return FALSE;
}

static gboolean
get_num (JsonObject * o, const gchar * name, gdouble * v, GError ** error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) ||
      (json_node_get_value_type (n) != G_TYPE_DOUBLE &&
          json_node_get_value_type (n) != G_TYPE_INT64))
    return invalid (error, name);
  *v = json_node_get_double (n);
  return TRUE;
}

static gboolean
get_str (JsonObject * o, const gchar * name, gchar ** v, GError ** error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL)
    return invalid (error, name);
  if (JSON_NODE_HOLDS_NULL (n)) {
    *v = NULL;
    return TRUE;
  }
  if (!JSON_NODE_HOLDS_VALUE (n) ||
      json_node_get_value_type (n) != G_TYPE_STRING)
    return invalid (error, name);
  *v = g_strdup (json_node_get_string (n));
  return TRUE;
}

static gboolean
kind_from_string (const gchar * s, GstAxReportConstraintKind * kind)
{
  GstAxReportConstraintKind k;

  for (k = GST_AX_REPORT_CONSTRAINT_UNDETERMINED;
      k <= GST_AX_REPORT_CONSTRAINT_DROPS; k++)
    if (g_strcmp0 (gst_ax_report_constraint_kind_to_string (k), s) == 0) {
      *kind = k;
      return TRUE;
    }
  return FALSE;
}

static gboolean
read_topology (JsonObject * o, GstAxReportProjection * p, GError ** error)
{
  JsonNode *n = json_object_get_member (o, "topology");
  JsonObject *t;
  JsonArray *rows, *devices;
  guint i;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return invalid (error, "topology");
  t = json_node_get_object (n);
  if (!json_object_has_member (t, "rows") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (t, "rows")) ||
      !json_object_has_member (t, "devices") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (t, "devices")))
    return invalid (error, "topology");
  rows = json_object_get_array_member (t, "rows");
  devices = json_object_get_array_member (t, "devices");
  p->topology = gst_ax_projection_topology_new ();
  for (i = 0; i < json_array_get_length (rows); i++) {
    JsonNode *e = json_array_get_element (rows, i);
    JsonObject *r;
    gchar *group = NULL, *element = NULL, *row = NULL;
    gdouble thread = 0;
    gboolean ok;

    if (!JSON_NODE_HOLDS_OBJECT (e))
      return invalid (error, "topology.rows");
    r = json_node_get_object (e);
    ok = get_str (r, "group", &group, error) &&
        get_str (r, "element", &element, error) &&
        get_str (r, "row", &row, error) &&
        get_num (r, "thread", &thread, error) && thread >= 0;
    if (ok)
      gst_ax_projection_topology_add_row (p->topology, group, element, row,
          (guint) thread);
    g_free (group);
    g_free (element);
    g_free (row);
    if (!ok)
      return error && *error ? FALSE : invalid (error, "topology.rows");
  }
  for (i = 0; i < json_array_get_length (devices); i++) {
    JsonNode *e = json_array_get_element (devices, i);
    JsonObject *d;
    gchar *group = NULL, *element = NULL, *resources = NULL;
    gdouble scale = 0;
    gboolean ok;

    if (!JSON_NODE_HOLDS_OBJECT (e))
      return invalid (error, "topology.devices");
    d = json_node_get_object (e);
    ok = get_str (d, "group", &group, error) &&
        get_str (d, "element", &element, error) &&
        get_num (d, "time_scale", &scale, error) &&
        get_str (d, "resources", &resources, error);
    if (ok)
      gst_ax_projection_topology_add_device (p->topology, group, element,
          scale, resources);
    g_free (group);
    g_free (element);
    g_free (resources);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_ax_projection_from_json (GstAxReport * report, JsonObject * root,
    GError ** error)
{
  JsonNode *n = json_object_get_member (root, "projection");
  JsonObject *o;
  GstAxReportProjection *p;
  gchar *kind = NULL;
  gboolean ok;

  /* reports written before the projection have none */
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return invalid (error, "(object)");
  o = json_node_get_object (n);
  if (json_object_has_member (o, "absent"))
    return TRUE;
  p = g_new0 (GstAxReportProjection, 1);
  ok = get_num (o, "time_scale", &p->time_scale, error) &&
      get_num (o, "host_speed", &p->host_speed, error) &&
      get_str (o, "what_if", &p->what_if, error) &&
      get_num (o, "fps", &p->fps, error) &&
      get_num (o, "latency_p50_ms", &p->latency_p50_ms, error) &&
      get_num (o, "occupancy_percent", &p->occupancy_percent, error) &&
      get_str (o, "kind", &kind, error) &&
      get_str (o, "element", &p->element, error) &&
      get_str (o, "row", &p->row, error) &&
      get_str (o, "queue", &p->queue, error) &&
      get_str (o, "model", &p->model, error) &&
      get_str (o, "constraint", &p->constraint, error);
  if (ok && !kind_from_string (kind, &p->kind))
    ok = invalid (error, "kind");
  g_free (kind);
  if (ok)
    ok = read_topology (o, p, error);
  if (!ok) {
    gst_ax_report_projection_free (p);
    return FALSE;
  }
  gst_ax_report_projection_free (report->projection);
  report->projection = p;
  return TRUE;
}

void
gst_ax_projection_note_verdict (const GstAxReport * report,
    GstAxReportVerdict * v)
{
  const GstAxReportProjection *p = report->projection;
  gboolean differs;

  if (p == NULL || !projected (p))
    return;
  /* the constraint stays this run's (what held it back); the step says
   * what would hold the run on the modelled device */
  differs = p->kind != v->kind || g_strcmp0 (p->element, v->element) != 0 ||
      g_strcmp0 (p->model, v->model) != 0 ||
      g_strcmp0 (p->queue, v->queue) != 0;
  g_ptr_array_add (v->steps, g_strdup_printf ("  7. On the modelled device "
          "(every job at its modelled time, the host rows as measured) the "
          "constraint would be %s%s: %.1f fps, latency p50 %.2f ms, device "
          "occupancy %.1f%%.", differs ? "another: " : "the same, ",
          p->constraint, p->fps, p->latency_p50_ms, p->occupancy_percent));
}

/* dest's projection: src's, through its JSON (which carries everything,
 * the topology for a what-if included) */
void
gst_ax_projection_copy (GstAxReport * dest, const GstAxReport * src)
{
  JsonBuilder *b;
  JsonNode *root;

  if (src->projection == NULL)
    return;
  b = json_builder_new ();
  json_builder_begin_object (b);
  gst_ax_projection_to_json (src, b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  if (!gst_ax_projection_from_json (dest, json_node_get_object (root), NULL))
    g_warn_if_reached ();
  json_node_unref (root);
  g_object_unref (b);
}
