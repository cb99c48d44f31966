/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's queue depth against the queue's own state. The ground
 * truth is the queue's current-level-buffers property, sampled by a
 * thread of the test (never by the tracer); levels are forced with sleeps
 * on one side of each queue, so that the figures are far from the
 * thresholds the assertions use and no timing is asserted. */

#include "axproftest.h"

#include <math.h>
#include <string.h>

#define RUN_TIMEOUT (60 * GST_SECOND)
#define SAMPLE_PERIOD_US 500
/* The tracker and the sampler see the same level up to the scheduling of
 * two threads and the ends of the window (the sampler's opens at the
 * first buffer's probe, before the queue's chain, and closes when the
 * queue pushes EOS, just after its last change): on a loaded 2-core host
 * or under ASan, within this many buffers and points of percentage. */
#define MEAN_TOLERANCE 1.0
#define PERCENT_TOLERANCE 15.0
/* what "mostly" means in the assertions, far from either figure */
#define MOSTLY_PERCENT 60.0
#define RARELY_PERCENT 20.0

static gdouble
member (JsonObject * o, const gchar * name)
{
  fail_unless (o != NULL);
  fail_unless (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_double_member (o, name);
}

/* ---------------------------------------------------------------- sampler */

typedef struct
{
  gdouble area;
  guint64 empty_us;
  guint64 full_us;
  guint64 span_us;
} LevelSums;

typedef struct
{
  GstElement *queue;
  GThread *thread;
  gint stop;
  /* set by probes: a buffer on the queue's sink pad, EOS on its src pad */
  gint first_buffer;
  gint eos;
  /* written by the sampling thread, read after it is joined */
  gboolean started;
  guint64 last_us;
  guint last_level;
  guint limit;
  LevelSums sums;
  guint max_level;
} LevelSampler;

static gpointer
sample_levels (gpointer data)
{
  LevelSampler *s = data;

  while (!g_atomic_int_get (&s->stop)) {
    guint level = 0;
    guint64 now;

    g_object_get (s->queue, "current-level-buffers", &level, NULL);
    now = g_get_monotonic_time ();
    /* the tracer's window opens at the queue's first buffer */
    if (!s->started && g_atomic_int_get (&s->first_buffer)) {
      s->started = TRUE;
      s->last_us = now;
    } else if (s->started) {
      guint64 dt = now - s->last_us;

      s->sums.area += (gdouble) s->last_level * dt;
      if (s->last_level == 0)
        s->sums.empty_us += dt;
      if (s->limit > 0 && s->last_level >= s->limit)
        s->sums.full_us += dt;
      s->sums.span_us += dt;
      s->last_us = now;
      /* the tracer's closes at the queue's last change, just before */
      if (g_atomic_int_get (&s->eos))
        break;
    }
    s->last_level = level;
    s->max_level = MAX (s->max_level, level);
    g_usleep (SAMPLE_PERIOD_US);
  }
  return NULL;
}

static GstPadProbeReturn
mark_first_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  LevelSampler *s = user_data;

  g_atomic_int_set (&s->first_buffer, 1);
  return GST_PAD_PROBE_REMOVE;
}

static GstPadProbeReturn
mark_eos (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  LevelSampler *s = user_data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_EOS)
    return GST_PAD_PROBE_OK;
  g_atomic_int_set (&s->eos, 1);
  return GST_PAD_PROBE_REMOVE;
}

static void
sampler_start (LevelSampler * s, GstElement * queue)
{
  GstPad *sink = gst_element_get_static_pad (queue, "sink");
  GstPad *src = gst_element_get_static_pad (queue, "src");

  memset (s, 0, sizeof (*s));
  s->queue = queue;
  g_object_get (queue, "max-size-buffers", &s->limit, NULL);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, mark_first_buffer, s,
      NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, mark_eos, s,
      NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  s->thread = g_thread_new ("level-sampler", sample_levels, s);
}

static void
sampler_stop (LevelSampler * s)
{
  g_atomic_int_set (&s->stop, 1);
  g_thread_join (s->thread);
  fail_unless (s->started && s->sums.span_us > 0, "the sampler saw no buffer");
}

static gdouble
sampler_mean (const LevelSampler * s)
{
  return s->sums.area / s->sums.span_us;
}

static gdouble
sampler_empty_percent (const LevelSampler * s)
{
  return 100.0 * s->sums.empty_us / s->sums.span_us;
}

static gdouble
sampler_full_percent (const LevelSampler * s)
{
  return 100.0 * s->sums.full_us / s->sums.span_us;
}

/* ---------------------------------------------------------------- runs */

typedef struct
{
  GstElement *pipeline;
  GPtrArray *reports;
  GstBus *bus;
} Run;

static void
run_start (Run * run, const gchar * description)
{
  GError *err = NULL;

  run->pipeline = gst_parse_launch (description, &err);
  fail_unless (run->pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  run->reports = g_ptr_array_new ();
  ax_prof_watch (run->pipeline, run->reports);
  run->bus = gst_element_get_bus (run->pipeline);
}

static void
run_play (Run * run)
{
  fail_unless (gst_element_set_state (run->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static GstElement *
run_element (Run * run, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (run->pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  /* the pipeline holds it for the whole run */
  gst_object_unref (e);
  return e;
}

static void
run_wait_eos (Run * run)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (run->bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (msg != NULL, "no EOS within the timeout");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
}

static AxProfReport *
run_finish (Run * run)
{
  AxProfReport *r;

  gst_bus_set_sync_handler (run->bus, NULL, NULL, NULL);
  gst_object_unref (run->bus);
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  gst_object_unref (run->pipeline);
  fail_unless_equals_int (run->reports->len, 1);
  r = g_ptr_array_index (run->reports, 0);
  g_ptr_array_unref (run->reports);
  fail_unless_equals_string (r->status, "eos");
  return r;
}

/* The report's mean, empty and full shares of @name against the sampled
 * level (full: at max-size-buffers, the only limit these tests set). */
static void
assert_matches_sampled (AxProfReport * r, const gchar * name,
    const LevelSampler * s)
{
  JsonObject *q = ax_prof_find_queue (r->root, name);
  gdouble mean, empty, full;

  fail_unless (q != NULL, "no queue %s:\n%s", name, r->text);
  mean = member (q, "mean");
  empty = member (q, "empty_percent");
  full = member (q, "full_percent");
  /* AXPROF_TEST_VERBOSE=1 shows both sides */
  if (g_getenv ("AXPROF_TEST_VERBOSE"))
    g_printerr ("%s: report mean %.2f empty %.1f%% full %.1f%%, sampled "
        "mean %.2f empty %.1f%% full %.1f%%\n", name, mean, empty, full,
        sampler_mean (s), sampler_empty_percent (s), sampler_full_percent (s));
  fail_unless (fabs (mean - sampler_mean (s)) <= MEAN_TOLERANCE,
      "%s: report mean %.2f, sampled %.2f:\n%s", name, mean,
      sampler_mean (s), r->text);
  fail_unless (fabs (empty - sampler_empty_percent (s)) <= PERCENT_TOLERANCE,
      "%s: report empty %.1f%%, sampled %.1f%%:\n%s", name, empty,
      sampler_empty_percent (s), r->text);
  fail_unless (fabs (full - sampler_full_percent (s)) <= PERCENT_TOLERANCE,
      "%s: report full %.1f%%, sampled %.1f%%:\n%s", name, full,
      sampler_full_percent (s), r->text);
}

/* ---------------------------------------------------------------- tests */

/* Off-CPU time inside the queue's chain (here a sleep in a probe on its
 * sink pad, as a loaded host preempts the producer there) is not time at
 * a limit: an unbounded queue is never full. */
#define UNBOUNDED_BUFFERS 60
#define PRODUCER_SLEEP_US 5000

static GstPadProbeReturn
sleep_in_chain (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_usleep (PRODUCER_SLEEP_US);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_unbounded_never_full)
{
  Run run;
  GstPad *sink;
  AxProfReport *r;
  JsonObject *q;

  run_start (&run, "fakesrc num-buffers=" G_STRINGIFY (UNBOUNDED_BUFFERS)
      " ! queue name=q max-size-buffers=0 max-size-bytes=0 max-size-time=0 "
      "! fakesink");
  sink = gst_element_get_static_pad (run_element (&run, "q"), "sink");
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, sleep_in_chain, NULL,
      NULL);
  gst_object_unref (sink);
  run_play (&run);
  run_wait_eos (&run);
  r = run_finish (&run);

  q = ax_prof_find_queue (r->root, "q");
  fail_unless (q != NULL, "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member (q, "max_size_buffers"),
      0);
  fail_unless (member (q, "full_percent") == 0.0, "an unbounded queue reads "
      "full %.1f%%:\n%s", member (q, "full_percent"), r->text);
  /* the consumer is fast: the buffer is gone long before the next one */
  fail_unless (member (q, "empty_percent") >= MOSTLY_PERCENT, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A live source into a tee. The slow branch's consumer is slower than
 * the source, so its queue grows to many buffers and never reaches its
 * limit; the busy branch's consumer keeps up but is busy most of the
 * time, so its queue is empty (level 0) although its consumer rarely
 * waits on it. Neither is told by the threads' CPU or waiting time. */
#define TEE_BUFFERS 60
#define TEE_SLOW_US 25000
#define TEE_BUSY_US 5000

GST_START_TEST (test_tee_branch_depth)
{
  Run run;
  LevelSampler slow, busy;
  AxProfReport *r;

  run_start (&run, "videotestsrc is-live=true num-buffers="
      G_STRINGIFY (TEE_BUFFERS) " ! "
      "video/x-raw,width=64,height=48,framerate=100/1 ! tee name=t "
      "t. ! queue name=slowq ! identity sleep-time=" G_STRINGIFY (TEE_SLOW_US)
      " ! fakesink  t. ! queue name=busyq ! identity sleep-time="
      G_STRINGIFY (TEE_BUSY_US) " ! fakesink");
  sampler_start (&slow, run_element (&run, "slowq"));
  sampler_start (&busy, run_element (&run, "busyq"));
  run_play (&run);
  run_wait_eos (&run);
  sampler_stop (&slow);
  sampler_stop (&busy);
  r = run_finish (&run);

  /* the ground truth is what the test claims it is: the slow queue grows
   * and never fills (its consumer's sleeps only get longer on a busy
   * machine). Whether the busy one stays empty depends on how late the
   * machine wakes its consumer, so only axprof's match is asserted. */
  fail_unless (sampler_mean (&slow) > 1.0, "sampled mean %.2f",
      sampler_mean (&slow));
  fail_unless (sampler_full_percent (&slow) == 0.0);
  if (sampler_empty_percent (&busy) < MOSTLY_PERCENT)
    g_printerr ("busyq was sampled empty only %.1f%% of the time (a busy "
        "machine)\n", sampler_empty_percent (&busy));
  assert_matches_sampled (r, "slowq", &slow);
  assert_matches_sampled (r, "busyq", &busy);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* Two streams of one multiqueue: stream 0 has a slow consumer and sits at
 * its byte limit, stream 1 has a slow producer and is empty. Each is its
 * own row, with its own figures. */
#define MQ_BUFFERS 50
#define MQ_BUFFER_BYTES 1024
#define MQ_LIMIT_BUFFERS 4
#define MQ_SLOW_US 10000

GST_START_TEST (test_multiqueue_streams)
{
  Run run;
  AxProfReport *r;
  JsonObject *full, *empty;
  gchar *launch = g_strdup_printf ("fakesrc num-buffers=%d sizetype=fixed "
      "sizemax=%d ! mq.sink_0  fakesrc num-buffers=%d sizetype=fixed "
      "sizemax=%d ! identity sleep-time=%d ! mq.sink_1  multiqueue name=mq "
      "max-size-buffers=0 max-size-bytes=%d max-size-time=0 "
      "mq.src_0 ! identity name=slow sleep-time=%d ! fakesink  "
      "mq.src_1 ! fakesink name=fast",
      MQ_BUFFERS, MQ_BUFFER_BYTES, MQ_BUFFERS, MQ_BUFFER_BYTES, MQ_SLOW_US,
      MQ_LIMIT_BUFFERS * MQ_BUFFER_BYTES, MQ_SLOW_US);

  run_start (&run, launch);
  g_free (launch);
  run_play (&run);
  run_wait_eos (&run);
  r = run_finish (&run);

  full = ax_prof_find_queue (r->root, "mq:0");
  empty = ax_prof_find_queue (r->root, "mq:1");
  fail_unless (full != NULL && empty != NULL, "%s", r->text);
  fail_unless_equals_string (json_object_get_string_member (full, "element"),
      "mq");
  fail_unless (member (full, "full_percent") >= MOSTLY_PERCENT, "%s", r->text);
  fail_unless (member (full, "empty_percent") <= RARELY_PERCENT, "%s", r->text);
  /* not one more: the producer's return from the chain can land between
   * the consumer's dequeue and its push, a level the queue never held */
  fail_unless (member (full, "max") == MQ_LIMIT_BUFFERS, "%s", r->text);
  fail_unless (member (full, "mean") >= MQ_LIMIT_BUFFERS * MOSTLY_PERCENT /
      100.0, "%s", r->text);
  fail_unless (member (empty, "full_percent") == 0.0, "%s", r->text);
  fail_unless (member (empty, "empty_percent") >= MOSTLY_PERCENT, "%s",
      r->text);
  fail_unless (member (empty, "mean") < 1.0, "%s", r->text);
  /* each stream knows where it goes */
  fail_unless_equals_string (json_object_get_string_member (full,
          "downstream"), "slow");
  fail_unless_equals_string (json_object_get_string_member (empty,
          "downstream"), "fast");
  /* the verdict reads the full stream's own figures: it blames what that
   * stream feeds, not the other stream's busy identity */
  fail_unless_equals_string (r->verdict_kind, "backpressure");
  fail_unless_equals_string (r->verdict_element, "slow");
  ax_prof_report_free (r);
}

GST_END_TEST;

/* Flushing seeks while the queue is full drop what it holds without a
 * push; then a slow producer keeps it nearly empty. The report follows
 * the queue, not the buffers it dropped. */
#define SEEK_QUEUE_MAX 10
#define SEEKS 4
#define SEEK_SLOW_US 5000
#define SEEK_TAIL_BUFFERS 80
#define SEEK_POLL_US 1000
/* how long the queue stays full before each seek: long against the
 * sampler's period, so that a late wake-up of the sampler on a loaded
 * host does not hide it */
#define SEEK_HOLD_US 20000
/* the leaky queue's test: its consumer is slower than the source for a
 * while, then keeps up */
#define LEAKY_MAX 3
#define LEAKY_SLOW_US 20000
#define LEAKY_SLOW_PHASE_US 300000

typedef struct
{
  /* the consumer sleeps per buffer while set, the producer once unset */
  gint consumer_slow;
  gint tail_buffers;
} SeekState;

static GstPadProbeReturn
consumer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SeekState *st = user_data;

  if (g_atomic_int_get (&st->consumer_slow))
    g_usleep (SEEK_SLOW_US);
  else
    g_atomic_int_inc (&st->tail_buffers);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
leaky_consumer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SeekState *st = user_data;

  if (g_atomic_int_get (&st->consumer_slow))
    g_usleep (LEAKY_SLOW_US);
  else
    g_atomic_int_inc (&st->tail_buffers);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
producer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SeekState *st = user_data;

  if (!g_atomic_int_get (&st->consumer_slow))
    g_usleep (SEEK_SLOW_US);
  return GST_PAD_PROBE_OK;
}

static void
wait_level (GstElement * queue, guint level)
{
  guint cur = 0;
  gint64 deadline = g_get_monotonic_time () + RUN_TIMEOUT / GST_USECOND;

  for (;;) {
    g_object_get (queue, "current-level-buffers", &cur, NULL);
    if (cur >= level)
      return;
    fail_unless (g_get_monotonic_time () < deadline, "queue stuck at %u", cur);
    g_usleep (SEEK_POLL_US);
  }
}

GST_START_TEST (test_flushing_seeks_reset)
{
  SeekState st = { 1, 0 };
  LevelSampler s;
  Run run;
  GstElement *q;
  GstPad *pad;
  AxProfReport *r;
  JsonObject *jq;
  gint i;

  run_start (&run, "videotestsrc name=src ! "
      "video/x-raw,width=16,height=16,framerate=1000/1 ! "
      "queue name=q max-size-buffers=" G_STRINGIFY (SEEK_QUEUE_MAX)
      " max-size-bytes=0 max-size-time=0 ! fakesink name=sink");
  q = run_element (&run, "q");
  pad = gst_element_get_static_pad (run_element (&run, "sink"), "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, consumer_probe, &st, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (q, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, producer_probe, &st, NULL);
  gst_object_unref (pad);
  sampler_start (&s, q);
  run_play (&run);
  fail_unless (gst_element_get_state (run.pipeline, NULL, NULL,
          RUN_TIMEOUT) == GST_STATE_CHANGE_SUCCESS);
  for (i = 0; i < SEEKS; i++) {
    wait_level (q, SEEK_QUEUE_MAX);
    g_usleep (SEEK_HOLD_US);
    fail_unless (gst_element_seek_simple (run.pipeline, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, 0));
  }
  wait_level (q, SEEK_QUEUE_MAX);
  g_atomic_int_set (&st.consumer_slow, 0);
  while (g_atomic_int_get (&st.tail_buffers) < SEEK_TAIL_BUFFERS)
    g_usleep (SEEK_POLL_US);
  fail_unless (gst_element_send_event (run.pipeline, gst_event_new_eos ()));
  run_wait_eos (&run);
  sampler_stop (&s);
  r = run_finish (&run);

  jq = ax_prof_find_queue (r->root, "q");
  fail_unless (jq != NULL, "%s", r->text);
  /* the ground truth: mostly near empty after the seeks */
  fail_unless (sampler_mean (&s) < SEEK_QUEUE_MAX / 2.0, "sampled mean %.2f",
      sampler_mean (&s));
  assert_matches_sampled (r, "q", &s);
  fail_unless (member (jq, "max") <= SEEK_QUEUE_MAX, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A leaky queue drops buffers without a push while it is full; once its
 * consumer keeps up again, it is nearly empty. */

GST_START_TEST (test_leaky_queue)
{
  SeekState st = { 1, 0 };
  LevelSampler s;
  Run run;
  GstElement *q;
  GstPad *pad;
  AxProfReport *r;

  run_start (&run, "videotestsrc is-live=true ! "
      "video/x-raw,width=16,height=16,framerate=100/1 ! "
      "queue name=q leaky=downstream max-size-buffers="
      G_STRINGIFY (LEAKY_MAX) " max-size-bytes=0 max-size-time=0 ! "
      "fakesink name=sink");
  q = run_element (&run, "q");
  pad = gst_element_get_static_pad (run_element (&run, "sink"), "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, leaky_consumer_probe,
      &st, NULL);
  gst_object_unref (pad);
  sampler_start (&s, q);
  run_play (&run);
  g_usleep (LEAKY_SLOW_PHASE_US);
  g_atomic_int_set (&st.consumer_slow, 0);
  while (g_atomic_int_get (&st.tail_buffers) < SEEK_TAIL_BUFFERS)
    g_usleep (SEEK_POLL_US);
  fail_unless (gst_element_send_event (run.pipeline, gst_event_new_eos ()));
  run_wait_eos (&run);
  sampler_stop (&s);
  r = run_finish (&run);

  /* the ground truth: full, then nearly empty for longer */
  fail_unless (sampler_mean (&s) < LEAKY_MAX / 2.0, "sampled mean %.2f",
      sampler_mean (&s));
  assert_matches_sampled (r, "q", &s);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A limit set while the queue runs counts from then on; here it is the
 * time limit that binds, from the buffers' timestamps and durations. */
#define TIME_LIMIT_BUFFERS 60
#define TIME_LIMIT_MS 50
#define TIME_LIMIT_AFTER 5
#define TIME_SLOW_US 5000

typedef struct
{
  GstElement *queue;
  gint seen;
} LimitSetter;

static GstPadProbeReturn
set_time_limit (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  LimitSetter *ls = user_data;

  if (g_atomic_int_add (&ls->seen, 1) + 1 == TIME_LIMIT_AFTER)
    g_object_set (ls->queue, "max-size-time",
        (guint64) TIME_LIMIT_MS * GST_MSECOND, NULL);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_time_limit_set_in_run)
{
  LimitSetter ls = { NULL, 0 };
  Run run;
  GstPad *pad;
  AxProfReport *r;
  JsonObject *q;

  run_start (&run, "videotestsrc num-buffers=" G_STRINGIFY (TIME_LIMIT_BUFFERS)
      " ! video/x-raw,width=16,height=16,framerate=100/1 ! queue name=q "
      "max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
      "identity sleep-time=" G_STRINGIFY (TIME_SLOW_US) " ! fakesink");
  ls.queue = run_element (&run, "q");
  pad = gst_element_get_static_pad (ls.queue, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, set_time_limit, &ls, NULL);
  gst_object_unref (pad);
  run_play (&run);
  run_wait_eos (&run);
  r = run_finish (&run);

  q = ax_prof_find_queue (r->root, "q");
  fail_unless (q != NULL, "%s", r->text);
  fail_unless (member (q, "max_size_time_ms") == TIME_LIMIT_MS, "%s", r->text);
  fail_unless (g_strcmp0 (json_object_get_string_member (q, "full_limit"),
          "max-size-time") == 0, "%s", r->text);
  /* 10 ms buffers into a 50 ms limit: about 5 buffers, then full until
   * the source ends and the queue drains */
  fail_unless (member (q, "full_percent") >= MOSTLY_PERCENT, "%s", r->text);
  fail_unless (member (q, "max") <= TIME_LIMIT_MS / 10 + 2, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_queues_suite (void)
{
  Suite *s = suite_create ("axprof-queues");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_unbounded_never_full);
  tcase_add_test (tc, test_tee_branch_depth);
  tcase_add_test (tc, test_multiqueue_streams);
  tcase_add_test (tc, test_flushing_seeks_reset);
  tcase_add_test (tc, test_time_limit_set_in_run);
  tcase_add_test (tc, test_leaky_queue);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_queues_suite (), "axprof-queues",
      __FILE__);
}
