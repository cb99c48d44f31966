/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-benchmark: the second front door to the axprof report. It builds
 * the standard detection pipeline for a model, runs it under the axprof
 * tracer and lets the tracer print its report at EOS, so the report is the
 * one `GST_TRACERS=axprof gst-launch-1.0 ...` prints for the same
 * pipeline (--print-pipeline prints that line).
 *
 * The frames come from a video file (--video, through decodebin), a folder
 * of photos (--images, each JPEG or PNG one frame, through decodebin), or
 * videotestsrc's ball.
 *
 * It runs the pipeline twice, as the report's two questions need:
 * - a serial pass first, over the first --serial-frames frames at
 *   in-flight 1, one frame in the pipeline at a time: a frame is let out
 *   of the source queue only when the one before it has reached the sink,
 *   so the latency is a frame's own cost from the source pull to the
 *   result, with nothing queued ahead of it;
 * - then the streamed pass over all the frames at the requested in-flight
 *   window, which gives every other figure of the report.
 * The report printed is the streamed pass's with the serial latency.
 *
 * --streams N runs N streams into one device: one pipeline of N branches,
 * each from its own source (the same video decoded N times, or N test
 * sources) into its own sink, their axinference elements sharing one
 * simulated device through the ax.device context (same device string and
 * device-id). The serial pass runs stream 1 alone, before the others
 * start; the report lists each stream's frames and fps. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "axfile.h"

#include <gst/gst.h>
#include <gst/ax/gstax-private.h>
#include <gst/ax/gstaxmodelquery.h>
#include <gst/ax/gstaxreport.h>
#include "axcompare.h"
#include "axwhatif.h"
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_FRAMES 300
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
/* --frames not given: the whole video or folder, DEFAULT_FRAMES of the
 * test source */
#define FRAMES_UNSET G_MININT
/* --in-flight not given: axinference's default */
#define IN_FLIGHT_UNSET G_MININT
/* the photos' timestamps; nothing waits on them (the sink does not sync) */
#define IMAGES_FPS 30
#define DEFAULT_SERIAL_FRAMES 30
/* --serial-frames not given */
#define SERIAL_FRAMES_UNSET G_MININT
/* a frame of the serial pass that has not reached the sink by then is
 * taken as lost, so that a dropping element cannot hang the pass */
#define SERIAL_FRAME_TIMEOUT_S 20
/* after Ctrl-C, how long EOS may take to drain the pipeline */
#define DEFAULT_EOS_TIMEOUT_S 5
#define MAX_EOS_TIMEOUT_S 3600
#define BUS_POLL_MS 100
#define PROGRESS_REFRESH_MS 500
#define MODEL_PATH_ENV GST_AX_MODEL_PATH_ENV
#define INFERENCE_FACTORY "axinference"
#define QUEUE_FACTORY "queue"
/* the identity that ends a video after --frames frames (a prefix: each
 * stream's has a suffix) */
#define FRAME_LIMIT_NAME "frame-limit"
/* the tracer prints nothing itself: this tool prints the combined report */
#define TRACER_PARAMS "axprof(print=false)"
#define SERIAL_DONE_MESSAGE "gst-ax-benchmark-serial-done"
/* --streams: one pipeline of up to MAX_STREAMS branches */
#define STREAMS_UNSET G_MININT
#define MIN_STREAMS 1
#define MAX_STREAMS 64
#define STREAM_SINK_FORMAT "sink-%u"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
/* DEBUG logging would void the timings: no run, or a refused report */
#define EXIT_REFUSED 3
/* the run went, but --json or --report could not be written */
#define EXIT_OUTPUT_FAILED 4
/* --baseline with --max-regression: this run is slower than the baseline */
#define EXIT_REGRESSION 5
/* Ctrl-C and EOS did not arrive in time: the report is cut short */
#define EXIT_INTERRUPTED 130
#define EXIT_STATUS_HELP \
  "Exit status: 0 the report was printed and written; 1 the pipeline " \
  "failed;\n2 bad arguments; 3 refused: DEBUG logging is enabled on the " \
  "data path\n(checked before the device is opened or the model loaded; " \
  "rerun without\nGST_DEBUG); 4 --json or --report could not be written; " \
  "5 --max-regression: slower\nthan the --baseline report (each " \
  "regression printed); 130 interrupted by\nCtrl-C and EOS did not " \
  "arrive in time (the report is cut short).\n"

#define USAGE_HINT "(gst-ax-benchmark --help lists the options)"

typedef enum
{
  IMAGE_JPEG,
  IMAGE_PNG,
  N_IMAGE_KINDS
} ImageKind;

static const struct
{
  const gchar *ext;
  const gchar *caps;
} image_kinds[N_IMAGE_KINDS] = {
  {"jpg", "image/jpeg"},
  {"png", "image/png"},
};

typedef struct
{
  gchar *video;
  gchar *images;
  gint frames;
  gint serial_frames;
  gint eos_timeout;
  gint in_flight;
  gchar *device;
  gdouble time_scale;
  gboolean have_time_scale;
  gchar *json;
  gchar *report_file;
  gboolean print_pipeline;
  gboolean overlay;
  gboolean quiet;
  gint streams;
  gchar *baseline;
  gdouble max_regression;
  gdouble noise_floor_ms;
  gchar *what_if;
  gchar *from_report;
} Options;

/* The photos of --images, linked as NNNNNN.jpg / NNNNNN.png into a
 * private folder so that multifilesrc can read them by index: JPEGs get
 * indices [0, n_jpeg), PNGs [n_jpeg, n). */
typedef struct
{
  gchar *dir;
  guint first[N_IMAGE_KINDS];
  guint count[N_IMAGE_KINDS];
  GPtrArray *links;
} ImageSet;

/* The serial pass's gate on the source queue's output and its clock at
 * the sink. Protected by lock. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean active;
  guint limit;
  guint passed;
  gboolean in_pipeline;
  gint64 enter_us;
  guint lost;
  /* release the gate for good: the pass is ending */
  gboolean stopping;
  GArray *samples_ms;
  GstBus *bus;
} SerialGate;

/* A sink the frames are counted at: a stream's, or the serial pass's. */
typedef struct
{
  SerialGate *gate;
  gint frames;
  gchar *name;
} StreamSink;

/* What one pass of the pipeline gave. */
typedef struct
{
  gboolean ok;
  gboolean eos;
  gboolean interrupted;
  GstAxReport *report;
} PassResult;

static gint frames_at_sink;
static volatile sig_atomic_t interrupted;

/* gst_parse_launch() reads double-quoted strings, not shell quoting */
static gchar *
parse_quote (const gchar * str)
{
  GString *s = g_string_new ("\"");

  for (; *str; str++) {
    if (*str == '"' || *str == '\\')
      g_string_append_c (s, '\\');
    g_string_append_c (s, *str);
  }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

static gboolean
image_kind_of (const gchar * name, ImageKind * kind)
{
  const gchar *dot = strrchr (name, '.');
  gchar *ext;
  gboolean found = TRUE;

  if (dot == NULL || dot == name)
    return FALSE;
  ext = g_ascii_strdown (dot + 1, -1);
  if (strcmp (ext, "jpg") == 0 || strcmp (ext, "jpeg") == 0)
    *kind = IMAGE_JPEG;
  else if (strcmp (ext, "png") == 0)
    *kind = IMAGE_PNG;
  else
    found = FALSE;
  g_free (ext);
  return found;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

static void
image_set_clear (ImageSet * set)
{
  guint i;

  if (set->links) {
    for (i = 0; i < set->links->len; i++)
      g_unlink (g_ptr_array_index (set->links, i));
    g_ptr_array_free (set->links, TRUE);
    set->links = NULL;
  }
  if (set->dir) {
    g_rmdir (set->dir);
    g_clear_pointer (&set->dir, g_free);
  }
}

/* Lists DIR's JPEG and PNG files in name order (at most max_frames when
 * positive) and links them into a private folder. Returns FALSE with a
 * message for the user. */
static gboolean
image_set_init (ImageSet * set, const gchar * dir, gint max_frames,
    gchar ** message)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  gchar *abs_dir = g_canonicalize_filename (dir, NULL);
  GError *err = NULL;
  GDir *d;
  const gchar *name;
  guint i, n, next[N_IMAGE_KINDS];
  ImageKind kind;
  gboolean ok = FALSE;

  memset (set, 0, sizeof (*set));
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    *message = g_strdup_printf ("--images %s: %s", dir,
        g_file_test (dir, G_FILE_TEST_EXISTS) ? "not a directory" :
        "no such directory");
    goto out;
  }
  d = g_dir_open (dir, 0, &err);
  if (d == NULL) {
    *message = g_strdup_printf ("--images %s: %s", dir, err->message);
    g_clear_error (&err);
    goto out;
  }
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (abs_dir, name, NULL);

    if (image_kind_of (name, &kind)
        && g_file_test (path, G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add (names, g_strdup (name));
    g_free (path);
  }
  g_dir_close (d);
  if (names->len == 0) {
    *message = g_strdup_printf ("--images %s: no JPEG or PNG images there "
        "(*.jpg, *.jpeg, *.png)", dir);
    goto out;
  }
  g_ptr_array_sort (names, compare_names);
  n = names->len;
  if (max_frames > 0 && (guint) max_frames < n)
    n = max_frames;

  for (i = 0; i < n; i++) {
    image_kind_of (g_ptr_array_index (names, i), &kind);
    set->count[kind]++;
  }
  set->first[IMAGE_JPEG] = 0;
  set->first[IMAGE_PNG] = set->count[IMAGE_JPEG];
  memcpy (next, set->first, sizeof (next));

  set->dir = g_dir_make_tmp ("gst-ax-benchmark-XXXXXX", &err);
  if (set->dir == NULL) {
    *message = g_strdup_printf ("cannot make a temporary folder: %s",
        err->message);
    g_clear_error (&err);
    goto out;
  }
  set->links = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < n; i++) {
    const gchar *photo = g_ptr_array_index (names, i);
    gchar *target = g_build_filename (abs_dir, photo, NULL);
    gchar *link_name, *link;

    image_kind_of (photo, &kind);
    link_name = g_strdup_printf ("%06u.%s", next[kind]++,
        image_kinds[kind].ext);
    link = g_build_filename (set->dir, link_name, NULL);
    g_free (link_name);
    if (symlink (target, link) != 0) {
      *message = g_strdup_printf ("cannot link %s as %s: %s", target, link,
          g_strerror (errno));
      g_free (target);
      g_free (link);
      goto out;
    }
    g_free (target);
    g_ptr_array_add (set->links, link);
  }
  ok = TRUE;

out:
  if (!ok)
    image_set_clear (set);
  g_ptr_array_free (names, TRUE);
  g_free (abs_dir);
  return ok;
}

static guint
image_set_total (const ImageSet * set)
{
  return set->count[IMAGE_JPEG] + set->count[IMAGE_PNG];
}

/* multifilesrc's location is a printf pattern, so a '%' in the folder's
 * name must be doubled */
static gchar *
image_pattern (const ImageSet * set, ImageKind kind)
{
  GString *s = g_string_new (NULL);
  const gchar *p;

  for (p = set->dir; *p; p++) {
    if (*p == '%')
      g_string_append_c (s, '%');
    g_string_append_c (s, *p);
  }
  g_string_append_printf (s, "%s%%06d.%s", G_DIR_SEPARATOR_S,
      image_kinds[kind].ext);
  return g_string_free (s, FALSE);
}

static void
append_image_source (GString * s, const ImageSet * set, ImageKind kind)
{
  gchar *pattern = image_pattern (set, kind);
  gchar *location = parse_quote (pattern);
  gchar *caps = g_strdup_printf ("%s,framerate=%d/1", image_kinds[kind].caps,
      IMAGES_FPS);
  gchar *quoted_caps = parse_quote (caps);

  g_string_append_printf (s, "multifilesrc location=%s start-index=%u "
      "stop-index=%u caps=%s ! decodebin ! videoconvert", location,
      set->first[kind], set->first[kind] + set->count[kind] - 1, quoted_caps);
  g_free (pattern);
  g_free (location);
  g_free (caps);
  g_free (quoted_caps);
}

/* The source part, ending in raw video ready for "queue ! ..."; @suffix
 * makes its element names unique among the streams. */
static void
append_source (GString * s, const Options * o, const ImageSet * set,
    const gchar * suffix)
{
  if (o->video) {
    gchar *quoted = parse_quote (o->video);

    g_string_append_printf (s, "filesrc location=%s ! decodebin ! "
        "videoconvert", quoted);
    g_free (quoted);
    /* identity ends the stream at buffer eos-after without passing it:
     * eos-after=N+1 lets N frames through. A decoder draining at EOS can
     * still push frames past it; the tool's probe (limit_frames()) stops
     * those, gst-launch-1.0 would not. */
    if (o->frames != FRAMES_UNSET)
      g_string_append_printf (s, " ! identity name=" FRAME_LIMIT_NAME "%s "
          "eos-after=%d", suffix, o->frames + 1);
  } else if (o->images) {
    if (set->count[IMAGE_JPEG] && set->count[IMAGE_PNG])
      /* a decoder's caps are fixed at its first frame; JPEGs and PNGs each
       * get their own source, played one after the other */
      g_string_append_printf (s, "concat name=photos%s", suffix);
    else
      append_image_source (s, set,
          set->count[IMAGE_JPEG] ? IMAGE_JPEG : IMAGE_PNG);
  } else {
    g_string_append_printf (s, "videotestsrc pattern=ball num-buffers=%d ! "
        "video/x-raw,width=%d,height=%d",
        o->frames == FRAMES_UNSET ? DEFAULT_FRAMES : o->frames,
        DEFAULT_WIDTH, DEFAULT_HEIGHT);
  }
}

/* One stream's branch; @stream counts from 1, and is 0 for a run that is
 * not split into streams (its names stay gst-launch-1.0's own). */
static void
append_branch (GString * s, const gchar * model, const Options * o,
    const ImageSet * set, guint stream)
{
  gchar *suffix = stream ? g_strdup_printf ("-%u", stream) : g_strdup ("");
  gchar *quoted_model = parse_quote (model);
  ImageKind kind;

  append_source (s, o, set, suffix);
  g_string_append (s, " ! queue ! axletterbox ! ");
  g_string_append_printf (s, "axinference model=%s", quoted_model);
  if (o->in_flight != IN_FLIGHT_UNSET)
    g_string_append_printf (s, " in-flight=%d", o->in_flight);
  if (o->device) {
    gchar *quoted = parse_quote (o->device);

    g_string_append_printf (s, " device=%s", quoted);
    g_free (quoted);
  }
  if (o->have_time_scale)
    g_string_append_printf (s, " time-scale=%g", o->time_scale);
  g_string_append (s, " ! axnms ! ");
  if (o->overlay)
    g_string_append (s, "axoverlay ! ");
  g_string_append (s, "fakesink ");
  if (stream)
    g_string_append_printf (s, "name=" STREAM_SINK_FORMAT " ", stream);
  g_string_append (s, "sync=false");

  /* linked after the main chain, through a static videoconvert pad, so that
   * concat takes the JPEGs first whichever decoder is ready first */
  if (o->images && set->count[IMAGE_JPEG] && set->count[IMAGE_PNG])
    for (kind = 0; kind < N_IMAGE_KINDS; kind++) {
      g_string_append (s, "  ");
      append_image_source (s, set, kind);
      g_string_append_printf (s, " ! photos%s.", suffix);
    }
  g_free (quoted_model);
  g_free (suffix);
}

/* @n_streams branches in one pipeline: their axinference elements name
 * the same device, so they share one (the ax.device context). A run
 * that is not split into streams (@n_streams 0) is the one branch. */
static gchar *
build_pipeline (const gchar * model, const Options * o, const ImageSet * set,
    guint n_streams)
{
  GString *s = g_string_new (NULL);
  guint i;

  if (n_streams == 0)
    append_branch (s, model, o, set, 0);
  for (i = 1; i <= n_streams; i++) {
    if (i > 1)
      g_string_append (s, "  ");
    append_branch (s, model, o, set, i);
  }
  return g_string_free (s, FALSE);
}

/* The lookup axinference does for its model property (a path as is, a
 * name through GST_AX_MODEL_PATH, the build's and the installed models),
 * done first so that a misspelt name is reported before anything starts. */
static gboolean
check_model (const gchar * model, gchar ** message)
{
  gchar *tried = NULL, *path = gst_ax_model_find (model, &tried);

  if (path == NULL)
    *message = g_strdup_printf ("model \"%s\" not found (tried %s; set "
        MODEL_PATH_ENV " or give an .axm path)", model, tried);
  g_free (tried);
  g_free (path);
  return path != NULL;
}

/* The reports are written last, over whatever their paths name: neither
 * may replace what the run reads (the model, the video, a photo), nor the
 * other report. Refused before the run, not after it. */
static gboolean
check_outputs_apart (const Options * o, const gchar * model,
    const ImageSet * images, gchar ** message)
{
  const gchar *const options[] = { "json", "report" };
  const gchar *const outputs[] = { o->json, o->report_file };
  GPtrArray *inputs = g_ptr_array_new_with_free_func (g_free);
  GError *err = NULL;
  gchar *msg = NULL;
  guint i;

  g_ptr_array_add (inputs, gst_ax_model_find (model, NULL));
  g_ptr_array_add (inputs, g_strdup (o->video));
  /* each photo through its link, which ax_file_same() follows */
  for (i = 0; images->links && i < images->links->len; i++)
    g_ptr_array_add (inputs, g_strdup (g_ptr_array_index (images->links, i)));
  for (i = 0; i < G_N_ELEMENTS (outputs) && msg == NULL; i++)
    if (outputs[i] && !ax_file_check_output (outputs[i],
            (const gchar * const *) inputs->pdata, inputs->len, &err)) {
      msg = g_strdup_printf ("--%s %s: %s; write it elsewhere",
          options[i], outputs[i], err->message);
      g_clear_error (&err);
    }
  if (msg == NULL && o->json && o->report_file
      && ax_file_replaces (o->report_file, o->json))
    msg = g_strdup_printf ("--json %s and --report %s name the same "
        "file; give each its own path", o->json, o->report_file);
  g_ptr_array_unref (inputs);
  *message = msg;
  return msg == NULL;
}

/* axinference's own ranges, so that gst_parse_launch() never silently
 * ignores an out-of-range value */
static gboolean
check_inference_range (const gchar * prop, const GValue * value,
    gchar ** message)
{
  GstElementFactory *factory = gst_element_factory_find (INFERENCE_FACTORY);
  GstPluginFeature *loaded;
  GObjectClass *klass;
  GParamSpec *pspec;
  GValue v = G_VALUE_INIT;
  gboolean ok = TRUE;

  if (factory == NULL) {
    *message = g_strdup ("the " INFERENCE_FACTORY " element is missing "
        "(is the gst-ax plugin on GST_PLUGIN_PATH? . scripts/env.sh sets it)");
    return FALSE;
  }
  /* the class, not an instance: an instance would take the name
   * axinference0 from the pipeline's element */
  loaded = gst_plugin_feature_load (GST_PLUGIN_FEATURE (factory));
  gst_object_unref (factory);
  if (loaded == NULL) {
    *message = g_strdup ("cannot load the " INFERENCE_FACTORY " element");
    return FALSE;
  }
  klass = g_type_class_ref (gst_element_factory_get_element_type
      (GST_ELEMENT_FACTORY (loaded)));
  gst_object_unref (loaded);
  pspec = g_object_class_find_property (klass, prop);
  if (pspec != NULL) {
    g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (pspec));
    if (!g_value_transform (value, &v) || g_param_value_validate (pspec, &v)) {
      gchar *range = NULL;

      if (G_IS_PARAM_SPEC_UINT (pspec))
        range = g_strdup_printf ("%u to %u", G_PARAM_SPEC_UINT (pspec)->minimum,
            G_PARAM_SPEC_UINT (pspec)->maximum);
      else if (G_IS_PARAM_SPEC_DOUBLE (pspec))
        range = g_strdup_printf ("%g to %g",
            G_PARAM_SPEC_DOUBLE (pspec)->minimum,
            G_PARAM_SPEC_DOUBLE (pspec)->maximum);
      *message = g_strdup_printf ("--%s is out of range (%s takes %s)", prop,
          INFERENCE_FACTORY, range ? range : "another value");
      g_free (range);
      ok = FALSE;
    }
    g_value_unset (&v);
  }
  g_type_class_unref (klass);
  return ok;
}

static gint64
monotonic_ms (void)
{
  return g_get_monotonic_time () / (G_USEC_PER_SEC / 1000);
}

static GstPadProbeReturn
serial_gate_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SerialGate *g = user_data;
  GstPadProbeReturn ret = GST_PAD_PROBE_OK;

  g_mutex_lock (&g->lock);
  if (!g->active)
    goto out;
  if (g->stopping || g->passed >= g->limit) {
    ret = GST_PAD_PROBE_DROP;
    goto out;
  }
  while (g->in_pipeline && !g->stopping) {
    gint64 deadline = g->enter_us + SERIAL_FRAME_TIMEOUT_S * G_USEC_PER_SEC;

    if (!g_cond_wait_until (&g->cond, &g->lock, deadline)
        && g_get_monotonic_time () >= deadline) {
      g->lost++;
      g->in_pipeline = FALSE;
    }
  }
  if (g->stopping) {
    ret = GST_PAD_PROBE_DROP;
    goto out;
  }
  g->in_pipeline = TRUE;
  g->passed++;
  g->enter_us = g_get_monotonic_time ();
out:
  g_mutex_unlock (&g->lock);
  return ret;
}

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  StreamSink *sink = user_data;
  SerialGate *g = sink->gate;
  gboolean done = FALSE;

  g_atomic_int_inc (&frames_at_sink);
  g_atomic_int_inc (&sink->frames);
  g_mutex_lock (&g->lock);
  if (g->active && g->in_pipeline) {
    gdouble ms = (g_get_monotonic_time () - g->enter_us) /
        (gdouble) (G_USEC_PER_SEC / 1000);

    g_array_append_val (g->samples_ms, ms);
    g->in_pipeline = FALSE;
    g_cond_broadcast (&g->cond);
    done = g->passed >= g->limit;
  }
  g_mutex_unlock (&g->lock);
  /* the main thread ends the pass with EOS */
  if (done)
    gst_bus_post (g->bus, gst_message_new_application (NULL,
            gst_structure_new_empty (SERIAL_DONE_MESSAGE)));
  return GST_PAD_PROBE_OK;
}

static void
serial_gate_set (SerialGate * g, gboolean active, guint limit)
{
  g_mutex_lock (&g->lock);
  g->active = active;
  g->limit = limit;
  g->passed = 0;
  g->lost = 0;
  g->in_pipeline = FALSE;
  g->stopping = FALSE;
  g_array_set_size (g->samples_ms, 0);
  g_mutex_unlock (&g->lock);
}

static void
serial_gate_release (SerialGate * g)
{
  g_mutex_lock (&g->lock);
  g->stopping = TRUE;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

/* The first element made by @factory, searched recursively. */
static GstElement *
find_by_factory (GstElement * pipeline, const gchar * factory)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  GstElement *found = NULL;

  while (found == NULL && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    GstElementFactory *f = gst_element_get_factory (e);

    if (f && strcmp (GST_OBJECT_NAME (f), factory) == 0)
      found = gst_object_ref (e);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

/* The sink of @stream (from 1), or the pipeline's one sink (0). */
static GstElement *
find_sink (GstElement * pipeline, guint stream)
{
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  GstElement *sink = NULL;
  gchar *name;

  if (stream > 0) {
    name = g_strdup_printf (STREAM_SINK_FORMAT, stream);
    sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
    g_free (name);
    return sink;
  }
  it = gst_bin_iterate_sinks (GST_BIN (pipeline));
  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    sink = g_value_dup_object (&item);
    g_value_unset (&item);
  }
  gst_iterator_free (it);
  return sink;
}

/* The frames a frame-limit identity has let through, against its limit */
typedef struct
{
  gint passed;
  gint limit;
} FrameLimit;

/* Past the limit, a buffer ends the stream here (a decoder draining at
 * EOS pushes frames after identity's own EOS, which identity passes). */
static GstPadProbeReturn
frame_limit_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  FrameLimit *l = user_data;

  if (g_atomic_int_add (&l->passed, 1) < l->limit)
    return GST_PAD_PROBE_OK;
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = NULL;
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_EOS;
  return GST_PAD_PROBE_HANDLED;
}

/* Puts frame_limit_probe() on every frame-limit identity of @pipeline:
 * each stream passes @frames frames exactly. */
static void
limit_frames (GstElement * pipeline, gint frames)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;

  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);

    if (g_str_has_prefix (GST_OBJECT_NAME (e), FRAME_LIMIT_NAME)) {
      GstPad *pad = gst_element_get_static_pad (e, "src");
      FrameLimit *l = g_new0 (FrameLimit, 1);

      l->limit = frames;
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, frame_limit_probe,
          l, g_free);
      gst_object_unref (pad);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

/* Counts frames at each of the @n_streams sinks (the one sink when 0)
 * into @sinks, and puts the serial gate on the first source queue's
 * output. */
static gboolean
watch_pipeline (GstElement * pipeline, SerialGate * gate, guint n_streams,
    StreamSink * sinks, gchar ** message)
{
  GstElement *queue, *sink;
  GstPad *pad = NULL;
  guint i;

  for (i = 0; i < MAX (n_streams, 1); i++) {
    sink = find_sink (pipeline, n_streams ? i + 1 : 0);
    if (sink) {
      pad = gst_element_get_static_pad (sink, "sink");
      sinks[i].gate = gate;
      sinks[i].frames = 0;
      sinks[i].name = gst_object_get_name (GST_OBJECT (sink));
      gst_object_unref (sink);
    }
    if (pad == NULL) {
      *message = g_strdup ("the pipeline has no sink to count frames at");
      return FALSE;
    }
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, &sinks[i],
        NULL);
    gst_object_unref (pad);
    pad = NULL;
  }

  queue = find_by_factory (pipeline, QUEUE_FACTORY);
  if (queue == NULL) {
    *message = g_strdup ("the pipeline has no source queue for the serial "
        "pass");
    return FALSE;
  }
  pad = gst_element_get_static_pad (queue, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, serial_gate_probe, gate,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (queue);
  return TRUE;
}

static void
on_sigint (int sig)
{
  interrupted = 1;
}

/* A progress line, rewritten in place, for a terminal only. */
static void
print_progress (const gchar * pass, gint64 start_ms, gint expected)
{
  gdouble s = (monotonic_ms () - start_ms) / 1000.0;
  gint n = g_atomic_int_get (&frames_at_sink);

  if (expected > 0)
    g_printerr ("\rgst-ax-benchmark: %s: %d of %d frames, %.1f fps, %.1f s ",
        pass, n, expected, s > 0 ? n / s : 0.0, s);
  else
    g_printerr ("\rgst-ax-benchmark: %s: %d frames, %.1f fps, %.1f s ",
        pass, n, s > 0 ? n / s : 0.0, s);
}

static void
take_report (GstMessage * msg, PassResult * res)
{
  const GstStructure *s = gst_message_get_structure (msg);
  GstAxReport *r = NULL;

  if (s == NULL || !gst_structure_has_name (s, "axprof-report"))
    return;
  if (gst_structure_get (s, "report", GST_AX_TYPE_REPORT, &r, NULL)) {
    if (res->report)
      gst_ax_report_unref (res->report);
    res->report = r;
  }
}

static void
print_error (GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_message_parse_error (msg, &err, &dbg);
  g_printerr ("gst-ax-benchmark: error from %s: %s\n%s\n",
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message, dbg ? dbg : "");
  g_clear_error (&err);
  g_free (dbg);
}

/* Runs @pipeline from NULL to EOS (or an error, or Ctrl-C) and back to
 * NULL, and takes the tracer's report of the run. */
static PassResult
run_pass (GstElement * pipeline, SerialGate * gate, const gchar * pass,
    gint expected, gboolean progress, gint eos_timeout_s)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  PassResult res = { TRUE, FALSE, FALSE, NULL };
  gint64 start_ms = monotonic_ms (), last_progress = start_ms;
  gint64 eos_deadline = 0;
  gboolean eos_sent = FALSE, done = FALSE, timed_out = FALSE;
  GstMessage *msg;

  g_atomic_int_set (&frames_at_sink, 0);
  /* a failed start posts its reason as an ERROR message: read it below */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, BUS_POLL_MS * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT |
        GST_MESSAGE_APPLICATION);
    if (msg) {
      switch (GST_MESSAGE_TYPE (msg)) {
        case GST_MESSAGE_ERROR:
          print_error (msg);
          res.ok = FALSE;
          done = TRUE;
          break;
        case GST_MESSAGE_EOS:
          res.eos = TRUE;
          done = TRUE;
          break;
        case GST_MESSAGE_ELEMENT:
          take_report (msg, &res);
          break;
        case GST_MESSAGE_APPLICATION:
          if (gst_message_has_name (msg, SERIAL_DONE_MESSAGE) && !eos_sent) {
            eos_sent = TRUE;
            gst_element_send_event (pipeline, gst_event_new_eos ());
          }
          break;
        default:
          break;
      }
      gst_message_unref (msg);
    }
    if (interrupted && !res.interrupted) {
      res.interrupted = TRUE;
      g_printerr ("%sgst-ax-benchmark: interrupted; sending EOS (Ctrl-C "
          "again to quit at once)\n", progress ? "\n" : "");
      signal (SIGINT, SIG_DFL);
      eos_deadline = monotonic_ms () + (gint64) eos_timeout_s *1000;
      if (!eos_sent) {
        eos_sent = TRUE;
        gst_element_send_event (pipeline, gst_event_new_eos ());
      }
    }
    if (!done && res.interrupted && monotonic_ms () >= eos_deadline)
      timed_out = done = TRUE;
    if (progress && monotonic_ms () - last_progress >= PROGRESS_REFRESH_MS) {
      last_progress = monotonic_ms ();
      print_progress (pass, start_ms, expected);
    }
  }
  if (progress) {
    print_progress (pass, start_ms, expected);
    g_printerr ("\n");
  }
  /* a gate waiting for a frame that will not come must not block the
   * streaming thread that the state change joins */
  serial_gate_release (gate);
  /* without EOS the tracer reports at PAUSED -> READY: take it before the
   * bus flushes at NULL */
  gst_element_set_state (pipeline, GST_STATE_READY);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) != NULL) {
    take_report (msg, &res);
    gst_message_unref (msg);
  }
  /* EOS may reach the sinks, and the tracer report it, while its bus
   * message is still on its way: the report says which it was */
  if (timed_out && res.report && res.report->status == GST_AX_REPORT_STATUS_EOS)
    res.eos = TRUE;
  else if (timed_out)
    g_printerr ("gst-ax-benchmark: EOS did not arrive within %d s "
        "(--eos-timeout); the report is cut short\n", eos_timeout_s);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return res;
}

/* GOption's own double parsing takes "nan" and "inf" */
static gboolean
parse_time_scale (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  Options *o = data;
  gchar *end = NULL;
  gdouble x;

  errno = 0;
  x = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || errno != 0 || !isfinite (x) || x < 0) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--time-scale must be a number, 0 or more, got \"%s\"", value);
    return FALSE;
  }
  o->time_scale = x;
  o->have_time_scale = TRUE;
  return TRUE;
}

static void
options_clear (Options * o)
{
  g_free (o->video);
  g_free (o->images);
  g_free (o->device);
  g_free (o->json);
  g_free (o->report_file);
  g_free (o->baseline);
  g_free (o->what_if);
  g_free (o->from_report);
}

/* The report files are written at the end: a folder that does not exist
 * is refused before the run, not after it. */
static gboolean
check_output_path (const gchar * option, const gchar * path, gchar ** message)
{
  gchar *dir;
  gboolean ok;

  if (*path == '\0') {
    *message = g_strdup_printf ("--%s: the path may not be empty", option);
    return FALSE;
  }
  dir = g_path_get_dirname (path);
  ok = g_file_test (dir, G_FILE_TEST_IS_DIR);
  if (!ok)
    *message = g_strdup_printf ("--%s %s: no such directory %s", option,
        path, dir);
  g_free (dir);
  return ok;
}

/* Checks what can be checked before GStreamer starts; the message is for
 * the user. */
static gboolean
check_options (const Options * o, gchar ** message)
{
  if (o->video && o->images) {
    *message = g_strdup ("give --video or --images, not both");
    return FALSE;
  }
  if (o->frames != FRAMES_UNSET && o->frames <= 0) {
    *message = g_strdup_printf ("--frames must be positive, got %d", o->frames);
    return FALSE;
  }
  if (o->serial_frames != SERIAL_FRAMES_UNSET && o->serial_frames < 0) {
    *message = g_strdup_printf ("--serial-frames must be 0 (no serial pass) "
        "or more, got %d", o->serial_frames);
    return FALSE;
  }
  if (o->eos_timeout < 0 || o->eos_timeout > MAX_EOS_TIMEOUT_S) {
    *message = g_strdup_printf ("--eos-timeout must be 0 to %d seconds, got "
        "%d", MAX_EOS_TIMEOUT_S, o->eos_timeout);
    return FALSE;
  }
  if (o->in_flight != IN_FLIGHT_UNSET && o->in_flight <= 0) {
    *message = g_strdup_printf ("--in-flight must be positive, got %d",
        o->in_flight);
    return FALSE;
  }
  if (o->streams != STREAMS_UNSET && (o->streams < MIN_STREAMS ||
          o->streams > MAX_STREAMS)) {
    *message = g_strdup_printf ("--streams must be %d to %d, got %d",
        MIN_STREAMS, MAX_STREAMS, o->streams);
    return FALSE;
  }
  if (o->json && !check_output_path ("json", o->json, message))
    return FALSE;
  if (o->report_file && !check_output_path ("report", o->report_file, message))
    return FALSE;
  if (o->video && !g_file_test (o->video, G_FILE_TEST_IS_REGULAR)) {
    if (g_file_test (o->video, G_FILE_TEST_IS_DIR))
      *message = g_strdup_printf ("--video %s: is a directory (--images "
          "takes a folder of photos)", o->video);
    else
      *message = g_strdup_printf ("--video %s: no such file", o->video);
    return FALSE;
  }
  return TRUE;
}

/* Sets every axinference's window; the element takes it when it opens
 * its device, so only in NULL. */
static void
set_in_flight (GstElement * pipeline, gint in_flight)
{
  GstElement *inference = find_by_factory (pipeline, INFERENCE_FACTORY);

  if (inference) {
    g_object_set (inference, "in-flight", (guint) MAX (in_flight, 0), NULL);
    gst_object_unref (inference);
  }
}

/* Writes the JSON first, so that the text can say where the outputs
 * could not be written, as the tracer's own report does. */
static gboolean
write_outputs (const Options * o, const gchar * text, const gchar * json)
{
  GString *errors = g_string_new (NULL);
  GError *err = NULL;
  gchar *full;
  gboolean ok;

  if (o->json && !gst_ax_output_write (o->json, json, -1,
          GST_AX_OUTPUT_REPLACE, &err)) {
    g_string_append_printf (errors, "Output: could not write --json %s: %s\n",
        o->json, err->message);
    g_clear_error (&err);
  }
  full = g_strconcat (text, errors->str, NULL);
  if (o->report_file && !gst_ax_output_write (o->report_file, full, -1,
          GST_AX_OUTPUT_REPLACE, &err)) {
    g_string_append_printf (errors, "Output: could not write --report %s: "
        "%s; the report is on stdout\n", o->report_file, err->message);
    g_clear_error (&err);
    g_free (full);
    full = g_strconcat (text, errors->str, NULL);
    fputs (full, stdout);
  } else if (o->report_file == NULL) {
    fputs (full, stdout);
  }
  if (fflush (stdout) != 0)
    g_string_append_printf (errors, "Output: could not write the report to "
        "stdout: %s\n", g_strerror (errno));
  if (errors->len)
    g_printerr ("gst-ax-benchmark: %s", errors->str);
  ok = errors->len == 0;
  g_free (full);
  g_string_free (errors, TRUE);
  return ok;
}

static gint
usage_error (gchar * message)
{
  g_printerr ("gst-ax-benchmark: %s\n" USAGE_HINT "\n", message);
  g_free (message);
  return EXIT_USAGE;
}

/* The projection made from the tracer's topology again, now that the
 * report carries the serial pass's latency, and the verdict with it. */
static void
reproject (GstAxReport * report)
{
  GstAxProjectionTopology *topology;
  GstAxReportVerdict *v;

  if (report->projection == NULL || report->projection->topology == NULL)
    return;
  topology = report->projection->topology;
  report->projection->topology = NULL;
  gst_ax_report_attach_projection (report, topology);
  v = gst_ax_report_make_verdict (report);
  gst_ax_report_set_verdict (report, v);
  gst_ax_report_verdict_free (v);
}

static gboolean
print_what_if (const GstAxReport * report, AxWhatIf * w)
{
  gchar *message = NULL, *text = ax_what_if_project (report, w, &message);

  if (text == NULL) {
    g_printerr ("gst-ax-benchmark: --what-if: %s\n", message);
    g_free (message);
    return FALSE;
  }
  g_print ("\nWhat if:\n%s", text);
  g_free (text);
  return TRUE;
}

/* --from-report: no run, the saved report projected. */
static gint
project_saved_report (const Options * o, AxWhatIf * w)
{
  gchar *json = NULL, *message;
  GError *err = NULL;
  GstAxReport *report;
  gboolean ok;

  if (o->what_if == NULL)
    return usage_error (g_strdup ("--from-report needs --what-if"));
  if (!g_file_get_contents (o->from_report, &json, NULL, &err)) {
    message = g_strdup_printf ("--from-report: %s", err->message);
    g_error_free (err);
    return usage_error (message);
  }
  report = gst_ax_report_new_from_json (json, &err);
  g_free (json);
  if (report == NULL) {
    message = g_strdup_printf ("--from-report %s: %s", o->from_report,
        err->message);
    g_error_free (err);
    return usage_error (message);
  }
  ok = print_what_if (report, w);
  gst_ax_report_unref (report);
  return ok ? 0 : EXIT_RUN_FAILED;
}

int
main (int argc, char **argv)
{
  Options o = { NULL, NULL, FRAMES_UNSET, SERIAL_FRAMES_UNSET,
    DEFAULT_EOS_TIMEOUT_S, IN_FLIGHT_UNSET, NULL, 0, FALSE, NULL, NULL, FALSE,
    FALSE, FALSE, STREAMS_UNSET, NULL, -1.0, AX_COMPARE_DEFAULT_NOISE_FLOOR_MS,
    NULL, NULL
  };
  GOptionEntry entries[] = {
    {"video", 'v', 0, G_OPTION_ARG_FILENAME, &o.video,
        "Video file to run, through decodebin (default: videotestsrc "
          "pattern=ball)", "FILE"},
    {"images", 'I', 0, G_OPTION_ARG_FILENAME, &o.images,
        "Folder of JPEG and PNG photos, each one frame (JPEGs first, each "
          "kind in name order)", "DIR"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o.frames,
        "Stop after N frames (default: the whole video or folder, 300 of "
          "the test source)", "N"},
    {"serial-frames", 's', 0, G_OPTION_ARG_INT, &o.serial_frames,
        "Frames of the serial latency pass, run first at in-flight 1 with "
          "one frame in the pipeline at a time (default 30; 0 skips it and "
          "takes the latency from the streamed pass)", "N"},
    {"in-flight", 'i', 0, G_OPTION_ARG_INT, &o.in_flight,
        "Frames outstanding on the device in the streamed pass (default: "
          "2 x cores), per stream with --streams", "N"},
    {"streams", 'S', 0, G_OPTION_ARG_INT, &o.streams,
        "Run N streams into one shared device (1 to 64): one pipeline of N "
          "branches, each from its own source (the same --video or --images "
          "decoded N times, else a test source each) into its own sink; the "
          "report gives each stream's fps. The serial pass runs stream 1 "
          "alone, before the others start", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &o.device,
        "Device profile, e.g. metis, torq, metis:cores=2", "PROFILE"},
    {"time-scale", 't', 0, G_OPTION_ARG_CALLBACK, parse_time_scale,
        "Device pacing: 1.0 real time, 0 as fast as the host computes", "X"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &o.json,
        "Also write the report as JSON", "FILE"},
    {"report", 'o', 0, G_OPTION_ARG_FILENAME, &o.report_file,
        "Write the text report to FILE instead of stdout", "FILE"},
    {"overlay", 0, 0, G_OPTION_ARG_NONE, &o.overlay,
        "Draw the detections (adds axoverlay)", NULL},
    {"print-pipeline", 'p', 0, G_OPTION_ARG_NONE, &o.print_pipeline,
        "Print the pipeline before running it", NULL},
    {"eos-timeout", 0, 0, G_OPTION_ARG_INT, &o.eos_timeout,
        "After Ctrl-C, seconds to wait for EOS before the report is cut "
          "short (default 5)", "S"},
    {"baseline", 'B', 0, G_OPTION_ARG_FILENAME, &o.baseline,
        "Compare the report with this earlier --json report (several "
          "runs comma-separated: their medians)", "FILE[,FILE...]"},
    {"max-regression", 0, 0, G_OPTION_ARG_DOUBLE, &o.max_regression,
        "With --baseline: exit 5 when fps falls, p95 latency rises or a "
          "row's CPU per frame rises by more than PCT percent", "PCT"},
    {"noise-floor-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.noise_floor_ms,
        "With --max-regression: a row's CPU per frame must also rise by "
          "more than MS (default 0.05)", "MS"},
    {"what-if", 'W', 0, G_OPTION_ARG_STRING, &o.what_if,
        "After the report, project the run onto another configuration "
          "from its measured host rows: any of in-flight=N, cores=N, "
          "device=PROFILE, host-speed=X (0.5: a host half as fast), "
          "time-scale=X", "KEY=VALUE,..."},
    {"from-report", 0, 0, G_OPTION_ARG_FILENAME, &o.from_report,
        "With --what-if: project this earlier --json report instead of "
          "running (no MODEL needed)", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
        "No notices on stderr (which passes run; a progress line when "
          "stderr is a terminal)", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GOptionGroup *group;
  GError *err = NULL;
  GstElement *pipeline, *serial_pipeline = NULL;
  gchar *desc, *serial_desc, *message = NULL, *text, *json;
  StreamSink sinks[MAX_STREAMS], serial_sink;
  ImageSet images = { 0 };
  SerialGate gate;
  PassResult serial = { TRUE, TRUE, FALSE, NULL }, streamed;
  GstAxReport *report;
  GstAxReportLatency serial_latency = { 0 };
  guint serial_warmup = 0;
  gdouble *serial_warmup_ms = NULL;
  gint expected = 0, status = 0;
  guint serial_n, serial_lost = 0, n_streams, i;
  gboolean ok, progress;
  GValue v = G_VALUE_INIT;
  AxCompareSide *baseline = NULL;
  AxWhatIf what_if = { {0,}, NULL, NULL };

  ctx = g_option_context_new ("MODEL - profile a detection pipeline");
  g_option_context_set_summary (ctx,
      "Runs MODEL (a name looked up like axinference's model property, "
      "through\n" MODEL_PATH_ENV ", or an .axm path) in the standard "
      "detection pipeline under\nthe axprof tracer and prints its benchmark "
      "report: the latency from a serial\npass at in-flight 1, every other "
      "figure from the streamed pass that follows.\nWith --streams N, N "
      "streams run into one shared device, the report giving\neach one's "
      "fps and the device occupancy they reach together.");
  g_option_context_set_description (ctx, EXIT_STATUS_HELP);
  group = g_option_group_new ("gst-ax-benchmark", "", "", &o, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    message = g_strdup (err->message);
    g_clear_error (&err);
    g_option_context_free (ctx);
    options_clear (&o);
    return usage_error (message);
  }
  if (o.what_if && !ax_what_if_parse (o.what_if, &what_if, &message)) {
    options_clear (&o);
    g_option_context_free (ctx);
    return usage_error (message);
  }
  if (o.from_report) {
    g_option_context_free (ctx);
    status = project_saved_report (&o, &what_if);
    ax_what_if_clear (&what_if);
    options_clear (&o);
    return status;
  }
  if (argc != 2) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);

    g_printerr ("gst-ax-benchmark: expected one MODEL argument, got %d\n\n%s",
        argc - 1, help);
    g_free (help);
    g_option_context_free (ctx);
    options_clear (&o);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (!check_options (&o, &message) || !check_model (argv[1], &message)
      || (o.images && !image_set_init (&images, o.images, o.frames, &message))
      || !check_outputs_apart (&o, argv[1], &images, &message)) {
    image_set_clear (&images);
    options_clear (&o);
    return usage_error (message);
  }
  if (o.max_regression != -1.0 && (o.max_regression < 0.0 || !o.baseline)) {
    image_set_clear (&images);
    options_clear (&o);
    return usage_error (g_strdup ("--max-regression takes a percentage of 0 "
            "or more, and needs --baseline"));
  }
  if (o.noise_floor_ms < 0.0) {
    image_set_clear (&images);
    options_clear (&o);
    return usage_error (g_strdup ("--noise-floor-ms takes 0 or more"));
  }
  /* a baseline that cannot be read is found before the run */
  if (o.baseline && (baseline = ax_compare_side_load (o.baseline,
              &err)) == NULL) {
    message = g_strdup_printf ("--baseline: %s", err->message);
    g_clear_error (&err);
    image_set_clear (&images);
    options_clear (&o);
    return usage_error (message);
  }
  if (o.images)
    expected = image_set_total (&images);
  else if (o.frames != FRAMES_UNSET)
    expected = o.frames;
  else if (!o.video)
    expected = DEFAULT_FRAMES;
  serial_n = o.serial_frames == SERIAL_FRAMES_UNSET ? DEFAULT_SERIAL_FRAMES :
      (guint) o.serial_frames;
  if (expected > 0)
    serial_n = MIN (serial_n, (guint) expected);

  /* the tracer must be named before GStreamer initialises its tracers,
   * which is why GStreamer's own options are not parsed here */
  if (g_getenv ("GST_TRACERS") != NULL)
    g_printerr ("gst-ax-benchmark: replacing GST_TRACERS=%s with %s\n",
        g_getenv ("GST_TRACERS"), TRACER_PARAMS);
  g_setenv ("GST_TRACERS", TRACER_PARAMS, TRUE);
  gst_init (NULL, NULL);

  /* before the device is opened or the model loaded: a refused run costs
   * nothing */
  message = gst_ax_debug_check_threshold ();
  if (message) {
    gchar *refusal = gst_ax_debug_refusal_message (message);

    g_printerr ("gst-ax-benchmark: refused: %s\n", refusal);
    g_free (refusal);
    g_free (message);
    image_set_clear (&images);
    options_clear (&o);
    return EXIT_REFUSED;
  }

  ok = TRUE;
  if (o.in_flight != IN_FLIGHT_UNSET) {
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, o.in_flight);
    ok = check_inference_range ("in-flight", &v, &message);
    g_value_unset (&v);
  }
  if (ok && o.have_time_scale) {
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, o.time_scale);
    ok = check_inference_range ("time-scale", &v, &message);
    g_value_unset (&v);
  }
  if (!ok) {
    image_set_clear (&images);
    options_clear (&o);
    return usage_error (message);
  }

  n_streams = o.streams == STREAMS_UNSET ? 0 : (guint) o.streams;
  memset (sinks, 0, sizeof (sinks));
  memset (&serial_sink, 0, sizeof (serial_sink));
  desc = build_pipeline (argv[1], &o, &images, n_streams);
  /* the latency is a frame's own cost: stream 1 alone on the device */
  serial_desc = n_streams > 1 ? build_pipeline (argv[1], &o, &images, 1) :
      g_strdup (desc);
  if (o.print_pipeline) {
    g_print ("gst-launch-1.0 -e %s\n", desc);
    if (serial_n > 0)
      g_print ("(run first as a serial pass: in-flight=1, the first %u "
          "frames, one at a time%s)\n", serial_n, n_streams > 1 ?
          ", of stream 1 alone" : "");
  }
  /* The streamed pass's pipeline is made first, so that its elements get
   * the names gst-launch-1.0 would give them (the report shows them); the
   * serial pass runs on a second instance of the same description, as
   * gst_parse_launch()'s links to decodebin's pads are made once. */
  pipeline = gst_parse_launch (desc, &err);
  if (err == NULL && serial_n > 0)
    serial_pipeline = gst_parse_launch (serial_desc, &err);
  if (pipeline == NULL || err != NULL) {
    g_printerr ("gst-ax-benchmark: could not build the pipeline: %s\n"
        "(is the gst-ax plugin on GST_PLUGIN_PATH?)\n",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    if (pipeline)
      gst_object_unref (pipeline);
    if (serial_pipeline)
      gst_object_unref (serial_pipeline);
    image_set_clear (&images);
    g_free (desc);
    g_free (serial_desc);
    options_clear (&o);
    return EXIT_RUN_FAILED;
  }

  memset (&gate, 0, sizeof (gate));
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  gate.samples_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  if (!watch_pipeline (pipeline, &gate, n_streams, sinks, &message) ||
      (serial_pipeline && !watch_pipeline (serial_pipeline, &gate,
              n_streams > 1 ? 1 : n_streams, &serial_sink, &message))) {
    g_printerr ("gst-ax-benchmark: %s\n", message);
    g_free (message);
    status = EXIT_RUN_FAILED;
    goto done;
  }
  if (o.video && o.frames != FRAMES_UNSET) {
    limit_frames (pipeline, o.frames);
    if (serial_pipeline)
      limit_frames (serial_pipeline, o.frames);
  }
  progress = !o.quiet && isatty (STDERR_FILENO);
  signal (SIGINT, on_sigint);

  if (serial_pipeline) {
    if (!o.quiet)
      g_printerr ("gst-ax-benchmark: serial pass: the first %u frames at "
          "in-flight 1, one at a time (Ctrl-C stops and prints the "
          "report)\n", serial_n);
    gate.bus = gst_element_get_bus (serial_pipeline);
    serial_gate_set (&gate, TRUE, serial_n);
    set_in_flight (serial_pipeline, 1);
    serial = run_pass (serial_pipeline, &gate, "serial pass",
        (gint) serial_n, progress, o.eos_timeout);
    /* the frames before the pipeline was warm are reported apart */
    serial_warmup = gst_ax_report_serial_warmup ((const gdouble *)
        gate.samples_ms->data, gate.samples_ms->len);
    gst_ax_report_latency_from_samples (&serial_latency,
        (const gdouble *) gate.samples_ms->data + serial_warmup,
        gate.samples_ms->len - serial_warmup);
    serial_warmup_ms = g_memdup2 (gate.samples_ms->data,
        serial_warmup * sizeof (gdouble));
    serial_lost = gate.lost;
    serial_gate_set (&gate, FALSE, 0);
    g_clear_pointer (&gate.bus, gst_object_unref);
    /* its device and model go before the streamed pass opens its own */
    g_clear_pointer (&serial_pipeline, gst_object_unref);
  }
  if (serial.ok && !serial.interrupted) {
    if (!o.quiet) {
      gchar *window = o.in_flight == IN_FLIGHT_UNSET ?
          g_strdup ("axinference's default in-flight window") :
          g_strdup_printf ("in-flight %d", o.in_flight);

      gchar *each = n_streams > 1 ? g_strdup_printf (" in each of %u "
          "streams", n_streams) : g_strdup ("");

      if (expected > 0)
        g_printerr ("gst-ax-benchmark: streamed pass: %d frames%s at %s "
            "(Ctrl-C stops and prints the report)\n", expected, each, window);
      else
        g_printerr ("gst-ax-benchmark: streamed pass: every frame%s at %s "
            "(Ctrl-C stops and prints the report)\n", each, window);
      g_free (window);
      g_free (each);
    }
    streamed = run_pass (pipeline, &gate, "streamed pass",
        expected * (gint) MAX (n_streams, 1), progress, o.eos_timeout);
    report = streamed.report;
    streamed.report = NULL;
    if (report && serial_n > 0) {
      gst_ax_report_set_serial_latency (report, serial_latency.n ?
          &serial_latency : NULL, "no frame of the serial pass reached the "
          "sink");
      gst_ax_report_set_serial_warmup (report, serial_warmup_ms, serial_warmup);
      if (serial_lost > 0)
        gst_ax_report_add_warning (report, "%u frames of the serial pass "
            "did not reach the sink within %d s and are not in its latency",
            serial_lost, SERIAL_FRAME_TIMEOUT_S);
    }
    /* the projection's latency is the serial pass's too */
    if (report && serial_n > 0)
      reproject (report);
    for (i = 0; report && i < n_streams; i++) {
      gchar *name = g_strdup_printf ("stream %u", i + 1);

      gst_ax_report_add_stream (report, name, sinks[i].name,
          (guint64) g_atomic_int_get (&sinks[i].frames));
      g_free (name);
    }
  } else {
    /* stopped in the serial pass: its own report is all there is */
    streamed = serial;
    report = serial.report;
    serial.report = NULL;
  }
  if (serial.report)
    gst_ax_report_unref (serial.report);

  if (report == NULL) {
    g_printerr ("gst-ax-benchmark: the axprof tracer gave no report (is "
        "it on GST_PLUGIN_PATH?)\n");
    status = EXIT_RUN_FAILED;
    goto done;
  }
  text = gst_ax_report_to_text (report);
  json = gst_ax_report_to_json (report);
  if (!write_outputs (&o, text, json))
    status = EXIT_OUTPUT_FAILED;
  if (report->refusal)
    status = EXIT_REFUSED;
  else if (!serial.ok || !streamed.ok)
    status = EXIT_RUN_FAILED;
  else if (streamed.interrupted && !streamed.eos)
    status = EXIT_INTERRUPTED;
  if (baseline) {
    AxCompareSide *run = ax_compare_side_new (&report, 1);
    AxCompareOptions co;
    GPtrArray *regs = NULL;
    gchar *cmp;

    ax_compare_options_init (&co);
    co.max_regression_percent = o.max_regression;
    co.noise_floor_ms = o.noise_floor_ms;
    cmp = ax_compare_format (baseline, run, o.baseline, "this run", &co, &regs);
    g_print ("\nAgainst the baseline:\n%s", cmp);
    if (regs->len > 0 && status == 0)
      status = EXIT_REGRESSION;
    g_ptr_array_unref (regs);
    g_free (cmp);
    ax_compare_side_free (run);
  }
  if (o.what_if && !print_what_if (report, &what_if) && status == 0)
    status = EXIT_RUN_FAILED;
  g_free (text);
  g_free (json);
  gst_ax_report_unref (report);

done:
  ax_what_if_clear (&what_if);
  ax_compare_side_free (baseline);
  if (gate.bus)
    gst_object_unref (gate.bus);
  if (serial_pipeline)
    gst_object_unref (serial_pipeline);
  gst_object_unref (pipeline);
  g_array_free (gate.samples_ms, TRUE);
  g_free (serial_warmup_ms);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  image_set_clear (&images);
  for (i = 0; i < MAX_STREAMS; i++)
    g_free (sinks[i].name);
  g_free (serial_sink.name);
  g_free (desc);
  g_free (serial_desc);
  options_clear (&o);
  return status;
}
