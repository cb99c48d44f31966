/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The command-line flow: simnpu-compile (trace and debug info),
 * simnpu-run-module (outputs, runtime CSV), simnpu-annotate (annotated CSV,
 * Perfetto trace, Host Profile Overview). Tool paths come as arguments:
 * compile, run-module, annotate, models source dir. */

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static const char *compile_tool, *run_tool, *annotate_tool, *models_dir;
static const char *host_model;
static gchar *tmp;

static gchar *
run (const char *const *argv, int expect_status)
{
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, &error));
  if (expect_status == 0 && !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed:\n%s%s", argv[0], out, err);
  if (expect_status != 0)
    g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_free (err);
  return out;
}

static unsigned
count_lines (const char *path)
{
  gchar *contents = NULL;
  unsigned n = 0;
  const char *p;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  for (p = contents; *p; p++)
    n += *p == '\n';
  g_free (contents);
  return n;
}


/* ------------------------------------------------------------------
 * The Perfetto trace, read with the field numbers of Perfetto's public
 * protos (protos/perfetto/trace/trace_packet.proto, track_event/
 * track_descriptor.proto and track_event.proto): Trace.packet = 1;
 * TracePacket.timestamp = 8, trusted_packet_sequence_id = 10,
 * track_event = 11, track_descriptor = 60; TrackDescriptor.uuid = 1,
 * name = 2; TrackEvent.type = 9 (TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END =
 * 2), track_uuid = 11, name = 23. */

#define WIRE_VARINT 0
#define WIRE_LEN 2

typedef struct
{
  const guint8 *p, *end;
} pb_reader;

static guint64
pb_read_varint (pb_reader * r)
{
  guint64 v = 0;
  guint shift = 0;

  for (;;) {
    guint8 c;
    g_assert_true (r->p < r->end);
    g_assert_cmpuint (shift, <, 64);
    c = *r->p++;
    v |= (guint64) (c & 0x7f) << shift;
    if (!(c & 0x80))
      return v;
    shift += 7;
  }
}

/* Next field of @r: its number and wire type; a length-delimited field's
 * contents in @sub. FALSE at the end. */
static gboolean
pb_next (pb_reader * r, guint * field, guint * wire, guint64 * value,
    pb_reader * sub)
{
  guint64 key;

  if (r->p >= r->end)
    return FALSE;
  key = pb_read_varint (r);
  *field = (guint) (key >> 3);
  *wire = (guint) (key & 7);
  if (*wire == WIRE_VARINT) {
    *value = pb_read_varint (r);
  } else {
    g_assert_cmpuint (*wire, ==, WIRE_LEN);
    *value = pb_read_varint (r);
    g_assert_cmpuint (*value, <=, (guint64) (r->end - r->p));
    sub->p = r->p;
    sub->end = r->p + *value;
    r->p += *value;
  }
  return TRUE;
}

typedef struct
{
  gchar *name;
  GArray *open_ends;            /* nesting stack: begin timestamps */
  guint64 last_ts;
  guint slices;
} pb_check_track;

static void
free_check_track (gpointer p)
{
  pb_check_track *t = p;

  g_free (t->name);
  g_array_free (t->open_ends, TRUE);
  g_free (t);
}

/* Checks @path against the protos: only their fields, every event on a
 * described track, timestamps never going back on a track, every begin
 * closed by an end. Returns the tracks by uuid. */
static GHashTable *
check_perfetto_pb (const char *path)
{
  gchar *contents = NULL;
  gsize len = 0;
  pb_reader trace, pkt, sub;
  guint field, wire;
  guint64 v;
  GHashTable *tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, free_check_track);
  GHashTableIter it;
  gpointer value;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  trace.p = (const guint8 *) contents;
  trace.end = trace.p + len;
  while (pb_next (&trace, &field, &wire, &v, &pkt)) {
    guint64 ts = 0, uuid = 0, type = 0;
    gboolean has_ts = FALSE, is_event = FALSE;
    gchar *name = NULL;

    g_assert_cmpuint (field, ==, 1);
    g_assert_cmpuint (wire, ==, WIRE_LEN);
    while (pb_next (&pkt, &field, &wire, &v, &sub)) {
      pb_reader ev = sub, inner;
      guint f2, w2;
      guint64 v2;

      switch (field) {
        case 8:
          g_assert_cmpuint (wire, ==, WIRE_VARINT);
          ts = v;
          has_ts = TRUE;
          break;
        case 10:
          g_assert_cmpuint (wire, ==, WIRE_VARINT);
          break;
        case 60:
          while (pb_next (&ev, &f2, &w2, &v2, &inner)) {
            g_assert_true (f2 == 1 || f2 == 2);
            if (f2 == 1)
              uuid = v2;
            else
              name = g_strndup ((const gchar *) inner.p, v2);
          }
          {
            pb_check_track *t = g_new0 (pb_check_track, 1);
            g_assert_nonnull (name);
            g_assert_null (g_hash_table_lookup (tracks, &uuid));
            t->name = name;
            t->open_ends = g_array_new (FALSE, FALSE, sizeof (guint64));
            g_hash_table_insert (tracks, g_memdup2 (&uuid, sizeof (uuid)), t);
          }
          break;
        case 11:
          is_event = TRUE;
          while (pb_next (&ev, &f2, &w2, &v2, &inner)) {
            g_assert_true (f2 == 9 || f2 == 11 || f2 == 23);
            if (f2 == 9)
              type = v2;
            else if (f2 == 11)
              uuid = v2;
          }
          break;
        default:
          g_error ("TracePacket field %u is not one simnpu-annotate writes",
              field);
      }
    }
    if (is_event) {
      pb_check_track *t = g_hash_table_lookup (tracks, &uuid);
      g_assert_true (has_ts);
      g_assert_nonnull (t);
      g_assert_cmpuint (ts, >=, t->last_ts);
      t->last_ts = ts;
      if (type == 1) {
        g_array_append_val (t->open_ends, ts);
        t->slices++;
      } else {
        g_assert_cmpuint (type, ==, 2);
        g_assert_cmpuint (t->open_ends->len, >, 0);
        g_array_set_size (t->open_ends, t->open_ends->len - 1);
      }
    }
  }
  g_hash_table_iter_init (&it, tracks);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_assert_cmpuint (((pb_check_track *) value)->open_ends->len, ==, 0);
  g_free (contents);
  return tracks;
}

static pb_check_track *
find_track (GHashTable * tracks, const char *name)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, tracks);
  while (g_hash_table_iter_next (&it, NULL, &value))
    if (strcmp (((pb_check_track *) value)->name, name) == 0)
      return value;
  return NULL;
}

/* The Host Profile Overview's row labels (after the rule), each once in
 * any case. */
static void
check_overview_rows (const gchar * out)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  gboolean in_rows = FALSE;
  guint i, j;

  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i];
    const gchar *end;

    if (strstr (l, "────")) {
      in_rows = TRUE;
      continue;
    }
    if (!in_rows || l[0] == '\0')
      continue;
    while (*l == ' ')
      l++;
    end = strstr (l, "  ");
    g_assert_nonnull (end);
    for (j = 0; j < labels->len; j++)
      if (g_ascii_strncasecmp (g_ptr_array_index (labels, j), l,
              end - l) == 0 &&
          strlen (g_ptr_array_index (labels, j)) == (gsize) (end - l))
        g_error ("Host Profile Overview row '%.*s' twice", (int) (end - l), l);
    g_ptr_array_add (labels, g_strndup (l, end - l));
  }
  g_assert_cmpuint (labels->len, >, 2);
  g_ptr_array_free (labels, TRUE);
  g_strfreev (lines);
}

/* The sheet's XML of an .xlsx (a zip): the central directory gives the
 * member's offset; members are stored or deflated. */
#define ZIP_EOCD_SIG 0x06054b50
#define ZIP_CENTRAL_SIG 0x02014b50
#define ZIP_LOCAL_SIG 0x04034b50
#define ZIP_EOCD_SIZE 22
#define ZIP_CENTRAL_SIZE 46
#define ZIP_LOCAL_SIZE 30
#define ZIP_DEFLATE 8

static guint
le16 (const guint8 * p)
{
  return p[0] | (p[1] << 8);
}

static guint32
le32 (const guint8 * p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) |
      ((guint32) p[3] << 24);
}

static gchar *
zip_member (const char *path, const char *member)
{
  gchar *contents = NULL, *result = NULL;
  gsize len = 0, pos;
  const guint8 *z, *c;
  guint n, i;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  z = (const guint8 *) contents;
  g_assert_cmpuint (len, >=, ZIP_EOCD_SIZE);
  for (pos = len - ZIP_EOCD_SIZE; pos > 0 && le32 (z + pos) != ZIP_EOCD_SIG;
      pos--);
  g_assert_cmpuint (le32 (z + pos), ==, ZIP_EOCD_SIG);
  n = le16 (z + pos + 10);
  c = z + le32 (z + pos + 16);
  for (i = 0; i < n && result == NULL; i++) {
    guint name_len = le16 (c + 28), extra = le16 (c + 30);
    guint comment = le16 (c + 32), method = le16 (c + 10);
    guint32 csize = le32 (c + 20), usize = le32 (c + 24);
    const guint8 *local = z + le32 (c + 42);

    g_assert_cmpuint (le32 (c), ==, ZIP_CENTRAL_SIG);
    if (name_len == strlen (member) &&
        memcmp (c + ZIP_CENTRAL_SIZE, member, name_len) == 0) {
      const guint8 *data = local + ZIP_LOCAL_SIZE + le16 (local + 26) +
          le16 (local + 28);

      g_assert_cmpuint (le32 (local), ==, ZIP_LOCAL_SIG);
      result = g_malloc0 (usize + 1);
      if (method == ZIP_DEFLATE) {
        GConverter *conv = G_CONVERTER (g_zlib_decompressor_new
            (G_ZLIB_COMPRESSOR_FORMAT_RAW));
        gsize read = 0, written = 0;
        GConverterResult cr = g_converter_convert (conv, data, csize, result,
            usize, G_CONVERTER_INPUT_AT_END, &read, &written, NULL);
        g_assert_true (cr == G_CONVERTER_FINISHED);
        g_assert_cmpuint (written, ==, usize);
        g_object_unref (conv);
      } else {
        memcpy (result, data, usize);
      }
    }
    c += ZIP_CENTRAL_SIZE + name_len + extra + comment;
  }
  g_free (contents);
  return result;
}

/* Every number in the sheet is rounded to the nanosecond as in the CSV:
 * the double nearest to a whole number of thousandths (the cell's text
 * may show that double with 16 digits, 727.2140000000001). */
#define THOUSANDTHS 1000.0

static void
check_xlsx_rounding (const char *path)
{
  gchar *sheet = zip_member (path, "xl/worksheets/sheet1.xml");
  const gchar *p;
  guint numbers = 0;

  g_assert_nonnull (sheet);
  for (p = strstr (sheet, "<v>"); p; p = strstr (p, "<v>")) {
    gdouble v, k;

    p += 3;
    v = g_ascii_strtod (p, NULL);
    g_assert_cmpfloat (v, >=, 0);
    k = (gdouble) (gint64) (v * THOUSANDTHS + 0.5);
    if (k / THOUSANDTHS != v)
      g_error ("%s: %.*s is not rounded to thousandths", path,
          (int) (strstr (p, "<") - p), p);
    numbers++;
  }
  g_assert_cmpuint (numbers, >, 0);
  g_free (sheet);
}

static void
test_torq_profiling_flow (void)
{
  gchar *json = g_build_filename (models_dir, "ball-detector.json", NULL);
  gchar *axm = g_build_filename (tmp, "ball.axm", NULL);
  gchar *trace = g_build_filename (tmp, "trace.csv", NULL);
  gchar *debug = g_build_filename (tmp, "debug", NULL);
  gchar *runtime = g_build_filename (tmp, "runtime.csv", NULL);
  gchar *annotated = g_build_filename (tmp, "annotated.csv", NULL);
  gchar *pb = g_build_filename (tmp, "annotated.pb", NULL);
  gchar *xlsx = g_build_filename (tmp, "annotated.xlsx", NULL);
  gchar *trace_arg = g_strdup_printf ("--dump-profiling=%s", trace);
  gchar *debug_arg = g_strdup_printf ("--debug-info=%s", debug);
  gchar *module_arg = g_strdup_printf ("--module=%s", axm);
  gchar *profile_arg = g_strdup_printf ("--profile-host=%s", runtime);
  gchar *contents = NULL, *out, **lines;
  const char *compile_argv[] = { compile_tool, json, "-o", axm, "--device",
    "torq", "--enable-profiling", trace_arg, debug_arg, NULL
  };
  const char *run_argv[] = { run_tool, module_arg,
    "--input=1x320x320x3xu8=0", "--iterations", "6", "--in-flight", "2",
    "--time-scale", "0", profile_arg, NULL
  };
  const char *annotate_csv_argv[] = { annotate_tool, debug, runtime,
    annotated, NULL
  };
  const char *annotate_pb_argv[] = { annotate_tool, debug, runtime, pb, NULL };
  const char *annotate_xlsx_argv[] = { annotate_tool, debug, runtime, xlsx,
    NULL
  };
  unsigned n_actions;

  out = run (compile_argv, 0);
  g_assert_nonnull (strstr (out, "ball-detector"));
  g_free (out);
  g_assert_true (g_file_get_contents (trace, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "ID,Start,End,Location,Op Type");
  g_assert_true (g_str_has_prefix (lines[1], "CS0,0,"));
  g_assert_true (g_str_has_prefix (lines[2], "DI0,"));
  g_assert_nonnull (strstr (contents, "S0,"));
  g_assert_nonnull (strstr (contents, "DO0,"));
  g_assert_nonnull (strstr (contents, "$.ops[0] (mask)\",conv2d"));
  n_actions = g_strv_length (lines) - 2;
  g_strfreev (lines);
  g_free (contents);

  out = run (run_argv, 0);
  g_assert_nonnull (strstr (out, "output output0: f32 [1,5,25600]"));
  g_assert_nonnull (strstr (out, "throughput at in-flight 2"));
  g_free (out);
  /* header, per job: 2 rows per action, 2 host copy rows, 1 core row */
  g_assert_cmpuint (count_lines (runtime), ==, 1 + 6 * (2 * n_actions + 3));

  out = run (annotate_csv_argv, 0);
  g_assert_nonnull (strstr (out, "Host Profile Overview"));
  g_assert_nonnull (strstr (out, "Model: ball-detector"));
  g_assert_nonnull (strstr (out, "OVERALL"));
  g_assert_nonnull (strstr (out, "Host Copy"));
  /* the guide's names, each resource once ("Cdma" and "cdma" are one) */
  g_assert_nonnull (strstr (out, "  Slice 0 "));
  g_assert_nonnull (strstr (out, "  Slice "));
  g_assert_nonnull (strstr (out, "  Dma Total "));
  g_assert_nonnull (strstr (out, "  Dma In "));
  g_assert_null (strstr (out, "slice0"));
  check_overview_rows (out);
  /* no Metis resources in a Torq profile: rows come from the data */
  g_assert_null (strstr (out, "Core"));
  g_free (out);
  /* header and one row per action and host copy of each job */
  g_assert_cmpuint (count_lines (annotated), ==, 1 + 6 * (n_actions + 1));
  g_assert_true (g_file_get_contents (annotated, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "action_id,job_id,operation,"
          "invocation_names,original_operators,total_time,"
          "slice_used_0_in_program,slice_used_1_in_program,"
          "dma_in_used_in_program,dma_out_used_in_program,"
          "cdma_used_in_program,css_used_in_program,timestamp_start,"
          "timestamp_end,location\n"));
  g_free (contents);

  out = run (annotate_pb_argv, 0);
  g_free (out);
  {
    GHashTable *tracks = check_perfetto_pb (pb);
    pb_check_track *t = find_track (tracks, "slice0");
    g_assert_nonnull (t);
    g_assert_cmpuint (t->slices, >, 0);
    g_assert_nonnull (find_track (tracks, "dma_in"));
    g_assert_nonnull (find_track (tracks, "host"));
    g_hash_table_destroy (tracks);
  }

  /* the workbook, where the tool was built with libxlsxwriter */
  {
    gchar *o = NULL, *e = NULL;
    gint status;
    g_assert_true (g_spawn_sync (NULL, (gchar **) annotate_xlsx_argv, NULL,
            0, NULL, NULL, &o, &e, &status, NULL));
    if (g_spawn_check_wait_status (status, NULL))
      check_xlsx_rounding (xlsx);
    else
      g_assert_nonnull (strstr (e, "built without libxlsxwriter"));
    g_free (o);
    g_free (e);
  }

  /* a wrong input shape is refused with what was expected */
  {
    const char *bad_argv[] = { run_tool, module_arg,
      "--input=1x64x64x3xu8=0", NULL
    };
    gchar *o = NULL, *e = NULL;
    gint status;
    g_assert_true (g_spawn_sync (NULL, (gchar **) bad_argv, NULL, 0, NULL,
            NULL, &o, &e, &status, NULL));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (e, "expected 1x320x320x3xu8"));
    g_free (o);
    g_free (e);
  }

  g_free (json);
  g_free (axm);
  g_free (trace);
  g_free (debug);
  g_free (runtime);
  g_free (annotated);
  g_free (pb);
  g_free (xlsx);
  g_free (trace_arg);
  g_free (debug_arg);
  g_free (module_arg);
  g_free (profile_arg);
}


/* Metis: four cores and one DMA engine that moves both ways. Each
 * direction gets its own track in the trace (a transfer out runs while a
 * transfer in is split around it), the cores fill the slice columns. */
static void
test_metis_annotate (void)
{
  gchar *json = g_build_filename (models_dir, "ball-detector.json", NULL);
  gchar *axm = g_build_filename (tmp, "ball-metis.axm", NULL);
  gchar *debug = g_build_filename (tmp, "debug-metis", NULL);
  gchar *runtime = g_build_filename (tmp, "runtime-metis.csv", NULL);
  gchar *annotated = g_build_filename (tmp, "annotated-metis.csv", NULL);
  gchar *pb = g_build_filename (tmp, "annotated-metis.pb", NULL);
  gchar *debug_arg = g_strdup_printf ("--debug-info=%s", debug);
  gchar *module_arg = g_strdup_printf ("--module=%s", axm);
  gchar *profile_arg = g_strdup_printf ("--profile-host=%s", runtime);
  gchar *contents = NULL, *out;
  const char *compile_argv[] = { compile_tool, json, "-o", axm, "--device",
    "metis", "--enable-profiling", debug_arg, NULL
  };
  /* in real time: transfers take time, and the engine's overlap */
  const char *run_argv[] = { run_tool, module_arg,
    "--input=1x320x320x3xu8=0", "--iterations", "4", "--in-flight", "2",
    profile_arg, NULL
  };
  const char *csv_argv[] = { annotate_tool, debug, runtime, annotated, NULL };
  const char *pb_argv[] = { annotate_tool, debug, runtime, pb, NULL };
  GHashTable *tracks;
  pb_check_track *in, *dma_out;

  g_free (run (compile_argv, 0));
  g_free (run (run_argv, 0));
  out = run (csv_argv, 0);
  g_assert_nonnull (strstr (out, "  Core 0 "));
  g_assert_nonnull (strstr (out, "  Dma "));
  check_overview_rows (out);
  g_free (out);
  g_assert_true (g_file_get_contents (annotated, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "action_id,job_id,operation,"
          "invocation_names,original_operators,total_time,"
          "slice_used_0_in_program,slice_used_1_in_program,"
          "slice_used_2_in_program,slice_used_3_in_program,"
          "dma_in_used_in_program,dma_out_used_in_program,"
          "cdma_used_in_program,css_used_in_program,timestamp_start,"
          "timestamp_end,location\n"));
  g_free (contents);

  g_free (run (pb_argv, 0));
  tracks = check_perfetto_pb (pb);
  in = find_track (tracks, "dma in");
  dma_out = find_track (tracks, "dma out");
  g_assert_nonnull (in);
  g_assert_nonnull (dma_out);
  g_assert_cmpuint (in->slices, >, 0);
  g_assert_cmpuint (dma_out->slices, >, 0);
  g_assert_null (find_track (tracks, "dma"));
  g_hash_table_destroy (tracks);

  g_free (json);
  g_free (axm);
  g_free (debug);
  g_free (runtime);
  g_free (annotated);
  g_free (pb);
  g_free (debug_arg);
  g_free (module_arg);
  g_free (profile_arg);
}

/* The host-sections model (tests/simnpu/host-model.h): the public input is
 * the preamble's f32, the outputs printed are the public ones. An input
 * of 1.5 everywhere gives x = 4 on the device: prob = sigmoid (4), z = 4. */
static void
test_run_module_host_sections (void)
{
  gchar *module_arg = g_strdup_printf ("--module=%s", host_model);
  const char *run_argv[] = { run_tool, module_arg, "--input=1x2x2x3xf32=1.5",
    "--iterations", "3", "--in-flight", "2", "--time-scale", "0", NULL
  };
  const char *bad_argv[] = { run_tool, module_arg, "--input=1x2x2x3xi8=1",
    "--time-scale", "0", NULL
  };
  gchar *out = run (run_argv, 0);

  g_assert_nonnull (strstr (out, "output prob: f32 [1,2,2,3]"));
  g_assert_nonnull (strstr (out, "min 0.982014 max 0.982014"));
  g_assert_nonnull (strstr (out, "output z: u8 [1,2,2,3]"));
  g_assert_nonnull (strstr (out, "dequantised: min 4 max 4"));
  g_assert_nonnull (strstr (out, "host sections per job: preamble"));
  g_free (out);
  /* the device's i8 input is not the model's input */
  g_free (run (bad_argv, 1));
  g_free (module_arg);
}

/* A runtime profile that cannot be written fails the run with its path;
 * the device node stays one. */
static void
test_run_module_profile_write_error (void)
{
  gchar *module_arg = g_strdup_printf ("--module=%s", host_model);
  const char *argv[] = { run_tool, module_arg, "--input=1x2x2x3xf32=1.5",
    "--iterations", "2", "--time-scale", "0", "--profile-host=/dev/full",
    NULL
  };
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    g_test_skip ("no /dev/full here");
    g_free (module_arg);
    return;
  }
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, NULL));
  if (g_spawn_check_wait_status (status, NULL)
      || strstr (err, "could not write the runtime profile /dev/full") == NULL)
    g_error ("expected a failure naming /dev/full:\n%s%s", out, err);
  g_assert_null (strstr (out, "runtime profile: /dev/full"));
  g_assert_false (g_file_test ("/dev/full", G_FILE_TEST_IS_REGULAR));
  g_free (out);
  g_free (err);
  g_free (module_arg);
}

/* A calibration image that does not decode stops the compile with a
 * message naming the option, and writes no model. */
static void
test_compile_bad_calibration (void)
{
  gchar *onnx = g_build_filename (ONNX_NODE_TESTS,
      "test_conv_with_strides_padding", "model.onnx", NULL);
  gchar *png = g_build_filename (tmp, "not-an-image.png", NULL);
  gchar *calib = g_strdup_printf ("--calibration=%s", png);
  gchar *axm = g_build_filename (tmp, "bad-calibration.axm", NULL);
  const char *argv[] = { compile_tool, onnx, "-o", axm, calib, NULL };
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  if (!g_file_test (onnx, G_FILE_TEST_EXISTS)) {
    g_test_skip ("libonnx-testdata is not installed");
    goto out;
  }
  g_assert_true (g_file_set_contents (png, "this is text", -1, NULL));
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          &out, &err, &status, NULL));
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "--calibration: "));
  g_assert_nonnull (strstr (err, "not-an-image.png"));
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
out:
  g_free (out);
  g_free (err);
  g_free (onnx);
  g_free (png);
  g_free (calib);
  g_free (axm);
}

/* A TF.js graph model: x [1,8,8,3] -> 3x3 conv (no bias) -> relu ->
 * 1x1 conv + bias -> y [1,8,8,2]. On a black image the first conv's
 * output (r1) is 0 everywhere, and y is the bias. */
static const char black_model_json[] =
    "{\"format\": \"graph-model\", \"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"8\"}, {\"size\": \"8\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"w1\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_FLOAT\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"3\"}, {\"size\": \"3\"},"
    " {\"size\": \"3\"}, {\"size\": \"4\"}]}}}}},"
    "{\"name\": \"w2\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_FLOAT\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"1\"}, {\"size\": \"1\"},"
    " {\"size\": \"4\"}, {\"size\": \"2\"}]}}}}},"
    "{\"name\": \"b2\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_FLOAT\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"2\"}]}}}}},"
    "{\"name\": \"c1\", \"op\": \"Conv2D\", \"input\": [\"x\", \"w1\"],"
    " \"attr\": {\"strides\": {\"list\": {\"i\": [\"1\", \"1\", \"1\","
    " \"1\"]}}, \"padding\": {\"s\": \"U0FNRQ==\"},"
    " \"data_format\": {\"s\": \"TkhXQw==\"},"
    " \"dilations\": {\"list\": {\"i\": [\"1\", \"1\", \"1\", \"1\"]}}}},"
    "{\"name\": \"r1\", \"op\": \"Relu\", \"input\": [\"c1\"]},"
    "{\"name\": \"c2\", \"op\": \"Conv2D\", \"input\": [\"r1\", \"w2\"],"
    " \"attr\": {\"strides\": {\"list\": {\"i\": [\"1\", \"1\", \"1\","
    " \"1\"]}}, \"padding\": {\"s\": \"U0FNRQ==\"},"
    " \"data_format\": {\"s\": \"TkhXQw==\"},"
    " \"dilations\": {\"list\": {\"i\": [\"1\", \"1\", \"1\", \"1\"]}}}},"
    "{\"name\": \"y\", \"op\": \"BiasAdd\", \"input\": [\"c2\", \"b2\"],"
    " \"attr\": {\"data_format\": {\"s\": \"TkhXQw==\"}}},"
    "{\"name\": \"Identity\", \"op\": \"Identity\", \"input\": [\"y\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"black.bin\"], \"weights\": ["
    "{\"name\": \"w1\", \"shape\": [3, 3, 3, 4], \"dtype\": \"float32\"},"
    "{\"name\": \"w2\", \"shape\": [1, 1, 4, 2], \"dtype\": \"float32\"},"
    "{\"name\": \"b2\", \"shape\": [2], \"dtype\": \"float32\"}]}]}";

#define BLACK_W1 (3 * 3 * 3 * 4)
#define BLACK_W2 (4 * 2)
#define BLACK_BIAS 0.5f

/* An 8x8 RGB PNG, every pixel black (written with Python's zlib). */
static const guint8 black_png[] = {
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
  0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08,
  0x08, 0x02, 0x00, 0x00, 0x00, 0x4b, 0x6d, 0x29, 0xdc, 0x00, 0x00, 0x00,
  0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x60, 0x18, 0x1e, 0x00,
  0x00, 0x00, 0xc8, 0x00, 0x01, 0x93, 0xbd, 0xa5, 0x8e, 0x00, 0x00, 0x00,
  0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82
};

/* Calibrating on one black image (a constant calibration set) compiles:
 * the first conv's output is constant (0), and its range is widened to
 * one the device can requantise to, with a warning, instead of the
 * compile failing with a "malformed model". The module then computes the
 * float model's output on the black image, the bias. */
static void
test_compile_constant_calibration (void)
{
  gchar *dir = g_build_filename (tmp, "constant-calibration", NULL);
  gchar *json = g_build_filename (dir, "model.json", NULL);
  gchar *bin = g_build_filename (dir, "black.bin", NULL);
  gchar *png = g_build_filename (dir, "black.png", NULL);
  gchar *axm = g_build_filename (dir, "black.axm", NULL);
  gchar *calib = g_strdup_printf ("--calibration=%s", png);
  gchar *module_arg = g_strdup_printf ("--module=%s", axm);
  const char *compile_argv[] = { compile_tool, json, "-o", axm, calib, NULL };
  const char *run_argv[] = { run_tool, module_arg, "--input=1x8x8x3xu8=0",
    "--time-scale", "0", NULL
  };
  float weights[BLACK_W1 + BLACK_W2 + 2];
  gchar *out = NULL, *err = NULL, *expect;
  gint status = 0;
  unsigned i;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (json, black_model_json, -1, NULL));
  for (i = 0; i < BLACK_W1; i++)
    weights[i] = (float) ((int) (i % 7) - 3) * 0.25f;
  for (i = 0; i < BLACK_W2; i++)
    weights[BLACK_W1 + i] = (float) ((int) (i % 5) - 2) * 0.5f;
  weights[BLACK_W1 + BLACK_W2] = weights[BLACK_W1 + BLACK_W2 + 1] = BLACK_BIAS;
  g_assert_true (g_file_set_contents (bin, (const gchar *) weights,
          sizeof (weights), NULL));
  g_assert_true (g_file_set_contents (png, (const gchar *) black_png,
          sizeof (black_png), NULL));

  g_assert_true (g_spawn_sync (NULL, (gchar **) compile_argv, NULL, 0, NULL,
          NULL, &out, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("the compile failed:\n%s%s", out, err);
  g_assert_null (strstr (err, "malformed"));
  /* the relu is fused into the first conv, whose output it names */
  g_assert_nonnull (strstr (err, "simnpu-compile: warning: every "
          "calibration input is the same, which gives 1 tensor (first 'r1')"));
  /* without --preprocess the user is told what the input gets */
  g_assert_nonnull (strstr (err, "simnpu-compile: no --preprocess: input "
          "'x' gets pixels 0..255 as they are"));
  g_free (out);
  g_free (err);
  {
    const char *pp_argv[] = { compile_tool, json, "-o", axm, calib,
      "--preprocess=scale=1/255", NULL
    };
    g_assert_true (g_spawn_sync (NULL, (gchar **) pp_argv, NULL, 0, NULL,
            NULL, &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("the compile with --preprocess failed:\n%s%s", out, err);
    g_assert_null (strstr (err, "no --preprocess"));
    g_free (out);
    g_free (err);
  }
  /* the model the run below reads: pixels as they are */
  g_assert_true (g_spawn_sync (NULL, (gchar **) compile_argv, NULL, 0, NULL,
          NULL, &out, &err, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_free (out);
  g_free (err);

  out = run (run_argv, 0);
  g_test_message ("%s", out);
  expect = g_strdup_printf ("min %g max %g", BLACK_BIAS, BLACK_BIAS);
  g_assert_nonnull (strstr (out, expect));
  g_free (expect);
  g_free (out);
  g_free (module_arg);
  g_free (calib);
  g_free (axm);
  g_free (png);
  g_free (bin);
  g_free (json);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  int ret;
  gchar *cmd;

  g_test_init (&argc, &argv, NULL);
  if (argc != 6) {
    g_printerr ("usage: test-tools COMPILE RUN-MODULE ANNOTATE MODELS_DIR "
        "HOST_MODEL\n");
    return 1;
  }
  compile_tool = argv[1];
  run_tool = argv[2];
  annotate_tool = argv[3];
  models_dir = argv[4];
  host_model = argv[5];
  tmp = g_dir_make_tmp ("simnpu-tools-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  g_test_add_func ("/simnpu/tools/profiling-flow", test_torq_profiling_flow);
  g_test_add_func ("/simnpu/tools/annotate-metis", test_metis_annotate);
  g_test_add_func ("/simnpu/tools/run-module-host-sections",
      test_run_module_host_sections);
  g_test_add_func ("/simnpu/tools/run-module-profile-write-error",
      test_run_module_profile_write_error);
  g_test_add_func ("/simnpu/tools/compile-bad-calibration",
      test_compile_bad_calibration);
  g_test_add_func ("/simnpu/tools/compile-constant-calibration",
      test_compile_constant_calibration);
  ret = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp);
  g_free (cmd);
  g_free (tmp);
  return ret;
}
