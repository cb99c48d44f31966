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
 * videotestsrc's ball. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/ax/gstaxdebugcheck.h>
#include <gst/ax/gstaxmodelquery.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
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
#define PROGRESS_INTERVAL_S 5
#define MODEL_PATH_ENV GST_AX_MODEL_PATH_ENV
#define INFERENCE_FACTORY "axinference"

#define EXIT_USAGE 2
#define EXIT_RUN_FAILED 1
/* DEBUG logging would void the timings: no run, or a refused report */
#define EXIT_REFUSED 3
/* the run went, but --json or --report could not be written */
#define EXIT_OUTPUT_FAILED 4
#define EXIT_STATUS_HELP \
  "Exit status: 0 the report was printed and written; 1 the pipeline " \
  "failed;\n2 bad arguments; 3 refused: DEBUG logging is enabled on the " \
  "data path\n(checked before the device is opened or the model loaded; " \
  "rerun without\nGST_DEBUG); 4 --json or --report could not be written."
#define REPORT_MESSAGE "axprof-report"

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
  gint in_flight;
  gchar *device;
  gdouble time_scale;
  gboolean have_time_scale;
  gchar *json;
  gchar *report_file;
  gboolean print_pipeline;
  gboolean overlay;
  gboolean quiet;
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

static gint frames_at_sink;

/* What the tracer's axprof-report messages said; written from the
 * posting thread, read after the pipeline stopped. */
typedef struct
{
  gboolean refused;
  GString *output_errors;
} ReportOutcome;

static ReportOutcome outcome;

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

/* The source part, ending in raw video ready for "queue ! ..." */
static void
append_source (GString * s, const Options * o, const ImageSet * set)
{
  if (o->video) {
    gchar *quoted = parse_quote (o->video);

    g_string_append_printf (s, "filesrc location=%s ! decodebin ! "
        "videoconvert", quoted);
    g_free (quoted);
    if (o->frames != FRAMES_UNSET)
      g_string_append_printf (s, " ! identity name=frame-limit eos-after=%d",
          o->frames);
  } else if (o->images) {
    if (set->count[IMAGE_JPEG] && set->count[IMAGE_PNG])
      /* a decoder's caps are fixed at its first frame; JPEGs and PNGs each
       * get their own source, played one after the other */
      g_string_append (s, "concat name=photos");
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

static gchar *
build_pipeline (const gchar * model, const Options * o, const ImageSet * set)
{
  GString *s = g_string_new (NULL);
  gchar *quoted_model = parse_quote (model);
  ImageKind kind;

  append_source (s, o, set);
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
  g_string_append (s, "fakesink sync=false");

  /* linked after the main chain, through a static videoconvert pad, so that
   * concat takes the JPEGs first whichever decoder is ready first */
  if (o->images && set->count[IMAGE_JPEG] && set->count[IMAGE_PNG])
    for (kind = 0; kind < N_IMAGE_KINDS; kind++) {
      g_string_append (s, "  ");
      append_image_source (s, set, kind);
      g_string_append (s, " ! photos.");
    }
  g_free (quoted_model);
  return g_string_free (s, FALSE);
}

static gchar *
build_tracer_params (const Options * o)
{
  GString *s = g_string_new ("axprof");
  gboolean first = TRUE;

  if (o->json || o->report_file) {
    g_string_append_c (s, '(');
    if (o->json) {
      g_string_append_printf (s, "json=%s", o->json);
      first = FALSE;
    }
    if (o->report_file)
      g_string_append_printf (s, "%sfile=%s", first ? "" : ",", o->report_file);
    g_string_append_c (s, ')');
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

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc (&frames_at_sink);
  return GST_PAD_PROBE_OK;
}

static void
watch_sink (GstElement * pipeline)
{
  GstIterator *it = gst_bin_iterate_sinks (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;

  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstPad *pad = gst_element_get_static_pad (g_value_get_object (&item),
        "sink");

    if (pad) {
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, NULL,
          NULL);
      gst_object_unref (pad);
    }
    g_value_unset (&item);
  }
  gst_iterator_free (it);
}

static void
on_report (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gboolean refused = FALSE;
  const gchar *errors;

  if (s == NULL || !gst_structure_has_name (s, REPORT_MESSAGE))
    return;
  if (gst_structure_get_boolean (s, "refused", &refused) && refused)
    outcome.refused = TRUE;
  errors = gst_structure_get_string (s, "output-errors");
  if (errors)
    g_string_append_printf (outcome.output_errors, "%s%s",
        outcome.output_errors->len ? "\n" : "", errors);
}

/* Every report the run posts, read from the posting thread: the bus
 * loop below may stop at EOS before it pops them. */
static void
watch_reports (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);

  outcome.output_errors = g_string_new (NULL);
  gst_bus_enable_sync_message_emission (bus);
  g_signal_connect (bus, "sync-message::element", G_CALLBACK (on_report), NULL);
  gst_object_unref (bus);
}

/* The exit status once the run is over. */
static int
run_status (gboolean ran)
{
  int status = EXIT_SUCCESS;

  if (!ran)
    status = EXIT_RUN_FAILED;
  else if (outcome.refused)
    status = EXIT_REFUSED;
  else if (outcome.output_errors && outcome.output_errors->len) {
    g_printerr ("gst-ax-benchmark: the report could not be written: %s\n",
        outcome.output_errors->str);
    status = EXIT_OUTPUT_FAILED;
  }
  if (outcome.output_errors)
    g_string_free (outcome.output_errors, TRUE);
  outcome.output_errors = NULL;
  return status;
}

static void
print_progress (gint64 start_us, gint expected)
{
  gdouble s = (g_get_monotonic_time () - start_us) / (gdouble) G_USEC_PER_SEC;
  gint n = g_atomic_int_get (&frames_at_sink);

  if (expected > 0)
    g_printerr ("gst-ax-benchmark: %d of %d frames in %.0f s (%.1f fps)\n",
        n, expected, s, s > 0 ? n / s : 0.0);
  else
    g_printerr ("gst-ax-benchmark: %d frames in %.0f s (%.1f fps)\n", n, s,
        s > 0 ? n / s : 0.0);
}

static gboolean
run (GstElement * pipeline, gint expected, gboolean quiet)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = TRUE, done = FALSE;
  gint64 start_us = g_get_monotonic_time ();

  /* a failed start posts its reason as an ERROR message: read it below */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus,
        quiet ? GST_CLOCK_TIME_NONE : PROGRESS_INTERVAL_S * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (msg == NULL) {
      print_progress (start_us, expected);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("gst-ax-benchmark: error from %s: %s\n%s\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message,
          dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      ok = FALSE;
    }
    gst_message_unref (msg);
    done = TRUE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
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
}

/* The tracer writes its report files at EOS: a path it cannot take or a
 * folder that does not exist is refused before the run, not after it. */
static gboolean
check_output_path (const gchar * option, const gchar * path, gchar ** message)
{
  gchar *dir;
  gboolean ok;

  /* GST_TRACERS="axprof(json=PATH,file=PATH)" has no quoting */
  if (*path == '\0' || strpbrk (path, ",()") != NULL) {
    *message = g_strdup_printf ("--%s %s: the path may not be empty or "
        "hold ',', '(' or ')'", option, path);
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
  if (o->in_flight != IN_FLIGHT_UNSET && o->in_flight <= 0) {
    *message = g_strdup_printf ("--in-flight must be positive, got %d",
        o->in_flight);
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

int
main (int argc, char **argv)
{
  Options o = { NULL, NULL, FRAMES_UNSET, IN_FLIGHT_UNSET, NULL, 0, FALSE,
    NULL, NULL, FALSE, FALSE, FALSE
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
    {"in-flight", 'i', 0, G_OPTION_ARG_INT, &o.in_flight,
        "Frames outstanding on the device (default: 2 x cores)", "N"},
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
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
        "No progress lines (every 5 s on stderr)", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GOptionGroup *group;
  GError *err = NULL;
  GstElement *pipeline;
  gchar *desc, *tracers, *message = NULL;
  ImageSet images = { 0 };
  gint expected = 0;
  gboolean ok;
  GValue v = G_VALUE_INIT;

  ctx = g_option_context_new ("MODEL - profile a detection pipeline");
  g_option_context_set_summary (ctx,
      "Runs MODEL (a name looked up like axinference's model property, "
      "through\n" MODEL_PATH_ENV ", or an .axm path) in the standard "
      "detection pipeline under\nthe axprof tracer and prints its benchmark "
      "report at EOS.");
  g_option_context_set_description (ctx, EXIT_STATUS_HELP);
  group = g_option_group_new ("gst-ax-benchmark", "", "", &o, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gst-ax-benchmark: %s\n", err->message);
    g_clear_error (&err);
    g_option_context_free (ctx);
    options_clear (&o);
    return EXIT_USAGE;
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
      || (o.images && !image_set_init (&images, o.images, o.frames, &message))) {
    g_printerr ("gst-ax-benchmark: %s\n", message);
    g_free (message);
    options_clear (&o);
    return EXIT_USAGE;
  }
  if (o.images)
    expected = image_set_total (&images);
  else if (o.frames != FRAMES_UNSET)
    expected = o.frames;
  else if (!o.video)
    expected = DEFAULT_FRAMES;

  /* the tracer must be named before GStreamer initialises its tracers,
   * which is why GStreamer's own options are not parsed here */
  tracers = build_tracer_params (&o);
  if (g_getenv ("GST_TRACERS") != NULL)
    g_printerr ("gst-ax-benchmark: replacing GST_TRACERS=%s with %s\n",
        g_getenv ("GST_TRACERS"), tracers);
  g_setenv ("GST_TRACERS", tracers, TRUE);
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
    g_free (tracers);
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
    g_printerr ("gst-ax-benchmark: %s\n", message);
    g_free (message);
    image_set_clear (&images);
    g_free (tracers);
    options_clear (&o);
    return EXIT_USAGE;
  }

  desc = build_pipeline (argv[1], &o, &images);
  if (o.print_pipeline)
    g_print ("gst-launch-1.0 -e %s\n", desc);
  pipeline = gst_parse_launch (desc, &err);
  if (pipeline == NULL || err != NULL) {
    g_printerr ("gst-ax-benchmark: could not build the pipeline: %s\n"
        "(is the gst-ax plugin on GST_PLUGIN_PATH?)\n",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    if (pipeline)
      gst_object_unref (pipeline);
    image_set_clear (&images);
    g_free (desc);
    g_free (tracers);
    options_clear (&o);
    return EXIT_RUN_FAILED;
  }
  if (!o.quiet)
    watch_sink (pipeline);
  watch_reports (pipeline);

  ok = run (pipeline, expected, o.quiet);
  gst_object_unref (pipeline);
  image_set_clear (&images);
  g_free (desc);
  g_free (tracers);
  options_clear (&o);
  return run_status (ok);
}
