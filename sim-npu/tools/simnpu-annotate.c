/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-annotate: joins a runtime CSV (simnpu-run-module --profile-host)
 * with the compile-time debug information (simnpu-compile --debug-info)
 * and writes an annotated CSV, an .xlsx workbook or a Perfetto trace
 * (.pb), then prints a Host Profile Overview whose rows are the
 * categories found in the data.
 *
 *   simnpu-annotate yolov8n_debug runtime.csv annotated.csv
 */

#include "simnpu-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_XLSXWRITER
#include <xlsxwriter.h>
#endif

#define EXIT_USAGE 2
#define MAX_LINE 4096
#define HOST_COPY "host_copy"
#define JOB_CORE "job_core"

typedef struct
{
  unsigned action_id;
  char *id;
  char *kind;
  char *resource;
  char *op_name;
  char *op_type;
  char *location;
} debug_action;

typedef struct
{
  char *dispatch;
  uint64_t job;
  unsigned action;
  double start_us;
  double end_us;
  const debug_action *info;
  const char *resource;
} row;

typedef struct
{
  GPtrArray *actions;
  GPtrArray *resources;
  char *model;
  GArray *rows;
  GHashTable *job_core;
} annotate;

/* Splits one CSV line, honouring double quotes. */
static GPtrArray *
csv_split (const char *line)
{
  GPtrArray *f = g_ptr_array_new_with_free_func (g_free);
  GString *cur = g_string_new ("");
  bool quoted = false;

  for (; *line && *line != '\n' && *line != '\r'; line++) {
    if (quoted) {
      if (*line == '"' && line[1] == '"') {
        g_string_append_c (cur, '"');
        line++;
      } else if (*line == '"') {
        quoted = false;
      } else {
        g_string_append_c (cur, *line);
      }
    } else if (*line == '"') {
      quoted = true;
    } else if (*line == ',') {
      g_ptr_array_add (f, g_string_free (cur, FALSE));
      cur = g_string_new ("");
    } else {
      g_string_append_c (cur, *line);
    }
  }
  g_ptr_array_add (f, g_string_free (cur, FALSE));
  return f;
}

static void
free_action (gpointer p)
{
  debug_action *a = p;
  g_free (a->id);
  g_free (a->kind);
  g_free (a->resource);
  g_free (a->op_name);
  g_free (a->op_type);
  g_free (a->location);
  g_free (a);
}

static int
read_debug (annotate * an, const char *dir)
{
  gchar *path = g_build_filename (dir, "actions.csv", NULL);
  gchar *contents = NULL, **lines;
  unsigned i;

  if (!g_file_get_contents (path, &contents, NULL, NULL)) {
    fprintf (stderr, "simnpu-annotate: cannot read %s (compile with "
        "--debug-info=%s)\n", path, dir);
    g_free (path);
    return -1;
  }
  g_free (path);
  lines = g_strsplit (contents, "\n", -1);
  for (i = 1; lines[i] != NULL; i++) {
    GPtrArray *f;
    debug_action *a;
    if (lines[i][0] == '\0')
      continue;
    f = csv_split (lines[i]);
    if (f->len < 8) {
      fprintf (stderr, "simnpu-annotate: actions.csv line %u: %u fields; "
          "expected 12\n", i + 1, f->len);
      g_ptr_array_free (f, TRUE);
      g_strfreev (lines);
      g_free (contents);
      return -1;
    }
    a = g_new0 (debug_action, 1);
    a->action_id = (unsigned) atoi (g_ptr_array_index (f, 0));
    a->id = g_strdup (g_ptr_array_index (f, 1));
    a->kind = g_strdup (g_ptr_array_index (f, 2));
    a->resource = g_strdup (g_ptr_array_index (f, 3));
    a->op_name = g_strdup (g_ptr_array_index (f, 5));
    a->op_type = g_strdup (g_ptr_array_index (f, 6));
    a->location = g_strdup (g_ptr_array_index (f, 7));
    g_ptr_array_add (an->actions, a);
    g_ptr_array_free (f, TRUE);
  }
  g_strfreev (lines);
  g_free (contents);

  path = g_build_filename (dir, "device.txt", NULL);
  if (g_file_get_contents (path, &contents, NULL, NULL)) {
    lines = g_strsplit (contents, "\n", -1);
    for (i = 0; lines[i] != NULL; i++) {
      if (g_str_has_prefix (lines[i], "resource="))
        g_ptr_array_add (an->resources, g_strdup (lines[i] + 9));
      else if (g_str_has_prefix (lines[i], "model="))
        an->model = g_strdup (lines[i] + 6);
    }
    g_strfreev (lines);
    g_free (contents);
  }
  g_free (path);
  return 0;
}

static char *
core_name (annotate * an, unsigned core)
{
  /* cores come first among the device's resources */
  if (core < an->resources->len)
    return g_ptr_array_index (an->resources, core);
  return "core";
}

static int
read_runtime (annotate * an, const char *path)
{
  gchar *contents = NULL, **lines;
  GHashTable *open_rows = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, g_free);
  unsigned i;

  if (!g_file_get_contents (path, &contents, NULL, NULL)) {
    fprintf (stderr, "simnpu-annotate: cannot read %s\n", path);
    g_hash_table_destroy (open_rows);
    return -1;
  }
  lines = g_strsplit (contents, "\n", -1);
  if (lines[0] == NULL || !g_str_has_prefix (lines[0],
          "dispatch_name,invocation_id,action_id,timestamp_us,event")) {
    fprintf (stderr, "simnpu-annotate: %s: expected the header "
        "dispatch_name,invocation_id,action_id,timestamp_us,event\n", path);
    g_strfreev (lines);
    g_free (contents);
    g_hash_table_destroy (open_rows);
    return -1;
  }
  for (i = 1; lines[i] != NULL; i++) {
    GPtrArray *f;
    const char *dispatch, *event;
    uint64_t job;
    unsigned action;
    double ts;
    gchar *key;
    if (lines[i][0] == '\0')
      continue;
    f = csv_split (lines[i]);
    if (f->len != 5) {
      fprintf (stderr, "simnpu-annotate: %s line %u: %u fields; expected 5\n",
          path, i + 1, f->len);
      g_ptr_array_free (f, TRUE);
      continue;
    }
    dispatch = g_ptr_array_index (f, 0);
    job = g_ascii_strtoull (g_ptr_array_index (f, 1), NULL, 10);
    action = (unsigned) atoi (g_ptr_array_index (f, 2));
    ts = g_ascii_strtod (g_ptr_array_index (f, 3), NULL);
    event = g_ptr_array_index (f, 4);
    key = g_strdup_printf ("%s/%" G_GUINT64_FORMAT "/%u", dispatch,
        (guint64) job, action);
    if (strcmp (dispatch, JOB_CORE) == 0) {
      g_hash_table_insert (an->job_core, g_memdup2 (&job, sizeof (job)),
          GUINT_TO_POINTER (action + 1));
      g_free (key);
    } else if (strcmp (event, "start") == 0) {
      double *v = g_new (double, 1);
      *v = ts;
      g_hash_table_replace (open_rows, key, v);
    } else if (strcmp (event, "end") == 0) {
      double *start = g_hash_table_lookup (open_rows, key);
      if (start != NULL) {
        row r = { 0 };
        r.dispatch = g_strdup (dispatch);
        r.job = job;
        r.action = action;
        r.start_us = *start;
        r.end_us = ts;
        g_array_append_val (an->rows, r);
        g_hash_table_remove (open_rows, key);
      }
      g_free (key);
    } else {
      g_free (key);
    }
    g_ptr_array_free (f, TRUE);
  }
  g_strfreev (lines);
  g_free (contents);
  g_hash_table_destroy (open_rows);

  for (i = 0; i < an->rows->len; i++) {
    row *r = &g_array_index (an->rows, row, i);
    if (strcmp (r->dispatch, HOST_COPY) == 0) {
      r->resource = "host";
      continue;
    }
    if (r->action < an->actions->len)
      r->info = g_ptr_array_index (an->actions, r->action);
    if (r->info && strcmp (r->info->resource, "core") == 0) {
      gpointer c = g_hash_table_lookup (an->job_core, &r->job);
      r->resource = c ? core_name (an, GPOINTER_TO_UINT (c) - 1) : "core";
    } else {
      r->resource = r->info ? r->info->resource : "unknown";
    }
  }
  return 0;
}

static int
compare_rows (const void *pa, const void *pb)
{
  const row *a = pa, *b = pb;
  if (a->start_us != b->start_us)
    return a->start_us < b->start_us ? -1 : 1;
  return a->action < b->action ? -1 : (a->action > b->action);
}

static const char *
operation (const row * r)
{
  if (r->info == NULL)
    return strcmp (r->dispatch, HOST_COPY) == 0 ? "HOST_COPY" : "unknown";
  return r->info->op_type;
}

/* ------------------------------------------------------------------ */
/* Writers                                                              */

static void
csv_field (FILE * f, const char *s)
{
  if (strpbrk (s, ",\"\n") == NULL) {
    fputs (s, f);
    return;
  }
  fputc ('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', f);
    fputc (*s, f);
  }
  fputc ('"', f);
}

static int
write_csv (annotate * an, const char *path)
{
  FILE *f = fopen (path, "w");
  unsigned i, k;

  if (f == NULL) {
    fprintf (stderr, "simnpu-annotate: cannot write %s\n", path);
    return -1;
  }
  fprintf (f, "action_id,job_id,operation,invocation_names,"
      "original_operators,total_time");
  for (k = 0; k < an->resources->len; k++)
    fprintf (f, ",%s_used_in_program",
        (char *) g_ptr_array_index (an->resources, k));
  fprintf (f, ",timestamp_start,timestamp_end,location\n");
  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    fprintf (f, "%u,%" G_GUINT64_FORMAT ",", r->action, (guint64) r->job);
    csv_field (f, operation (r));
    fputc (',', f);
    csv_field (f, r->resource);
    fputc (',', f);
    csv_field (f, r->info ? r->info->op_name : "");
    fprintf (f, ",%.3f", r->end_us - r->start_us);
    for (k = 0; k < an->resources->len; k++)
      fprintf (f, ",%d", strcmp (r->resource,
              g_ptr_array_index (an->resources, k)) == 0);
    fprintf (f, ",%.3f,%.3f,", r->start_us, r->end_us);
    csv_field (f, r->info ? r->info->location : "");
    fputc ('\n', f);
  }
  return fclose (f) == 0 ? 0 : -1;
}

#ifdef HAVE_XLSXWRITER
static int
write_xlsx (annotate * an, const char *path)
{
  lxw_workbook *wb = workbook_new (path);
  lxw_worksheet *ws;
  unsigned i, k, col;
  static const char *const head[] = { "action_id", "job_id", "operation",
    "invocation_names", "original_operators", "total_time"
  };

  if (wb == NULL)
    return -1;
  ws = workbook_add_worksheet (wb, "annotated");
  for (col = 0; col < G_N_ELEMENTS (head); col++)
    worksheet_write_string (ws, 0, col, head[col], NULL);
  for (k = 0; k < an->resources->len; k++) {
    gchar *h = g_strdup_printf ("%s_used_in_program",
        (char *) g_ptr_array_index (an->resources, k));
    worksheet_write_string (ws, 0, col++, h, NULL);
    g_free (h);
  }
  worksheet_write_string (ws, 0, col++, "timestamp_start", NULL);
  worksheet_write_string (ws, 0, col++, "timestamp_end", NULL);
  worksheet_write_string (ws, 0, col++, "location", NULL);
  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    lxw_row_t y = i + 1;
    col = 0;
    worksheet_write_number (ws, y, col++, r->action, NULL);
    worksheet_write_number (ws, y, col++, (double) r->job, NULL);
    worksheet_write_string (ws, y, col++, operation (r), NULL);
    worksheet_write_string (ws, y, col++, r->resource, NULL);
    worksheet_write_string (ws, y, col++, r->info ? r->info->op_name : "",
        NULL);
    worksheet_write_number (ws, y, col++, r->end_us - r->start_us, NULL);
    for (k = 0; k < an->resources->len; k++)
      worksheet_write_number (ws, y, col++, strcmp (r->resource,
              g_ptr_array_index (an->resources, k)) == 0, NULL);
    worksheet_write_number (ws, y, col++, r->start_us, NULL);
    worksheet_write_number (ws, y, col++, r->end_us, NULL);
    worksheet_write_string (ws, y, col++, r->info ? r->info->location : "",
        NULL);
  }
  return workbook_close (wb) == LXW_NO_ERROR ? 0 : -1;
}
#endif

/* Minimal protobuf encoding of a Perfetto trace: one track per resource
 * (TrackDescriptor) and a slice begin/end pair (TrackEvent) per row. */
static void
pb_varint (GByteArray * b, uint64_t v)
{
  do {
    guint8 c = v & 0x7f;
    v >>= 7;
    if (v)
      c |= 0x80;
    g_byte_array_append (b, &c, 1);
  } while (v);
}

static void
pb_key (GByteArray * b, unsigned field, unsigned wire)
{
  pb_varint (b, ((uint64_t) field << 3) | wire);
}

static void
pb_bytes (GByteArray * b, unsigned field, const void *data, size_t n)
{
  pb_key (b, field, 2);
  pb_varint (b, n);
  g_byte_array_append (b, data, (guint) n);
}

static void
pb_uint (GByteArray * b, unsigned field, uint64_t v)
{
  pb_key (b, field, 0);
  pb_varint (b, v);
}

#define PB_TRACE_PACKET 1
#define PB_PACKET_TIMESTAMP 8
#define PB_PACKET_SEQUENCE_ID 10
#define PB_PACKET_TRACK_EVENT 11
#define PB_PACKET_TRACK_DESCRIPTOR 60
#define PB_TRACK_UUID 1
#define PB_TRACK_NAME 2
#define PB_EVENT_TYPE 9
#define PB_EVENT_TRACK_UUID 11
#define PB_EVENT_NAME 23
#define PB_SLICE_BEGIN 1
#define PB_SLICE_END 2
#define PB_SEQUENCE_ID 1
#define TRACK_UUID_BASE 1000

static void
pb_packet (GByteArray * out, GByteArray * packet)
{
  pb_bytes (out, PB_TRACE_PACKET, packet->data, packet->len);
  g_byte_array_set_size (packet, 0);
}

static unsigned
track_of (annotate * an, const char *resource)
{
  unsigned k;

  for (k = 0; k < an->resources->len; k++)
    if (strcmp (resource, g_ptr_array_index (an->resources, k)) == 0)
      return k;
  return an->resources->len;
}

static int
write_perfetto (annotate * an, const char *path)
{
  GByteArray *out = g_byte_array_new (), *p = g_byte_array_new ();
  GByteArray *sub = g_byte_array_new ();
  unsigned i, k;
  gboolean ok;

  for (k = 0; k <= an->resources->len; k++) {
    const char *name = k < an->resources->len ?
        (const char *) g_ptr_array_index (an->resources, k) : "host";
    pb_uint (sub, PB_TRACK_UUID, TRACK_UUID_BASE + k);
    pb_bytes (sub, PB_TRACK_NAME, name, strlen (name));
    pb_bytes (p, PB_PACKET_TRACK_DESCRIPTOR, sub->data, sub->len);
    g_byte_array_set_size (sub, 0);
    pb_packet (out, p);
  }
  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    unsigned track = TRACK_UUID_BASE + track_of (an, r->resource);
    gchar *name = g_strdup_printf ("%s %s #%" G_GUINT64_FORMAT,
        r->info ? r->info->id : "host", r->info && r->info->op_name[0] ?
        r->info->op_name : operation (r), (guint64) r->job);
    int edge;
    for (edge = 0; edge < 2; edge++) {
      double ts = edge == 0 ? r->start_us : r->end_us;
      pb_uint (sub, PB_EVENT_TYPE, edge == 0 ? PB_SLICE_BEGIN : PB_SLICE_END);
      pb_uint (sub, PB_EVENT_TRACK_UUID, track);
      if (edge == 0)
        pb_bytes (sub, PB_EVENT_NAME, name, strlen (name));
      pb_uint (p, PB_PACKET_TIMESTAMP, (uint64_t) (ts * 1000.0));
      pb_uint (p, PB_PACKET_SEQUENCE_ID, PB_SEQUENCE_ID);
      pb_bytes (p, PB_PACKET_TRACK_EVENT, sub->data, sub->len);
      g_byte_array_set_size (sub, 0);
      pb_packet (out, p);
    }
    g_free (name);
  }
  ok = g_file_set_contents (path, (const gchar *) out->data, out->len, NULL);
  g_byte_array_free (out, TRUE);
  g_byte_array_free (p, TRUE);
  g_byte_array_free (sub, TRUE);
  return ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Host Profile Overview                                                */

typedef struct
{
  double start, end;
} span;

static int
compare_spans (const void *pa, const void *pb)
{
  const span *a = pa, *b = pb;
  return a->start < b->start ? -1 : (a->start > b->start);
}

/* Merges spans in place; returns the count. */
static unsigned
merge (span * s, unsigned n)
{
  unsigned i, m = 0;

  if (n == 0)
    return 0;
  qsort (s, n, sizeof (span), compare_spans);
  for (i = 1; i < n; i++) {
    if (s[i].start <= s[m].end)
      s[m].end = MAX (s[m].end, s[i].end);
    else
      s[++m] = s[i];
  }
  return m + 1;
}

static double
length (const span * s, unsigned n)
{
  double t = 0;
  unsigned i;

  for (i = 0; i < n; i++)
    t += s[i].end - s[i].start;
  return t;
}

/* Total length of the intersection of two merged span lists. */
static double
overlap (const span * a, unsigned na, const span * b, unsigned nb)
{
  unsigned i = 0, j = 0;
  double t = 0;

  while (i < na && j < nb) {
    double lo = MAX (a[i].start, b[j].start), hi = MIN (a[i].end, b[j].end);
    if (hi > lo)
      t += hi - lo;
    if (a[i].end < b[j].end)
      i++;
    else
      j++;
  }
  return t;
}

typedef struct
{
  const char *label;
  span *spans;
  unsigned n;
} category;

static category *
collect (annotate * an, const char *label, gboolean (*match) (const row *,
        const void *), const void *data)
{
  category *c = g_new0 (category, 1);
  unsigned i;

  c->label = label;
  c->spans = g_new (span, an->rows->len + 1);
  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    if (match (r, data)) {
      c->spans[c->n].start = r->start_us;
      c->spans[c->n].end = r->end_us;
      c->n++;
    }
  }
  c->n = merge (c->spans, c->n);
  return c;
}

static gboolean
match_kind (const row * r, const void *kind)
{
  return r->info != NULL && strcmp (r->info->kind, kind) == 0;
}

static gboolean
match_dma (const row * r, const void *unused)
{
  return r->info != NULL && (strcmp (r->info->kind, "DMA_IN") == 0
      || strcmp (r->info->kind, "DMA_OUT") == 0);
}

static gboolean
match_device (const row * r, const void *unused)
{
  return r->info != NULL;
}

static gboolean
match_resource (const row * r, const void *resource)
{
  return r->info != NULL && strcmp (r->resource, resource) == 0;
}

static gboolean
match_host_copy (const row * r, const void *unused)
{
  return r->info == NULL && strcmp (r->dispatch, HOST_COPY) == 0;
}

static void
print_time (const char *label, double us, double overall)
{
  gchar buf[32];

  if (us >= 1000.0)
    g_snprintf (buf, sizeof (buf), "%.3fms", us / 1000.0);
  else if (us >= 1.0)
    g_snprintf (buf, sizeof (buf), "%.3fµs", us);
  else
    g_snprintf (buf, sizeof (buf), "%.0fns", us * 1000.0);
  if (overall > 0)
    printf ("  %-28s %14s  (%.2f%%)\n", label, buf, 100.0 * us / overall);
  else
    printf ("  %-28s %14s\n", label, buf);
}

static void
free_category (category * c)
{
  g_free (c->spans);
  g_free (c);
}

static void
print_overview (annotate * an)
{
  category *device = collect (an, "device", match_device, NULL);
  category *dma = collect (an, "Dma", match_dma, NULL);
  category *compute = collect (an, "Compute", match_kind, "COMPUTE");
  category *host = collect (an, "Host Copy", match_host_copy, NULL);
  double first = G_MAXDOUBLE, last = 0, overall, dma_t, comp_t, both;
  static const char *const other_kinds[][2] = { {"CDMA", "Cdma"},
  {"CSS", "Css"}
  };
  unsigned i, k;

  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    first = MIN (first, r->start_us);
    last = MAX (last, r->end_us);
  }
  overall = device->n ? device->spans[device->n - 1].end -
      device->spans[0].start : 0;
  dma_t = length (dma->spans, dma->n);
  comp_t = length (compute->spans, compute->n);
  both = overlap (dma->spans, dma->n, compute->spans, compute->n);

  printf ("====================== Host Profile Overview "
      "=======================\n");
  printf ("  Model: %s\n", an->model ? an->model : "?");
  printf ("  %s\n",
      "────────────────────────────────────────────────────────");
  print_time ("WALL_TIME", an->rows->len ? last - first : 0, 0);
  print_time ("OVERALL", overall, 0);
  if (dma->n) {
    print_time ("Dma", dma_t, overall);
    print_time ("Dma Only", dma_t - both, overall);
  }
  for (k = 0; k < G_N_ELEMENTS (other_kinds); k++) {
    category *c = collect (an, other_kinds[k][1], match_kind,
        other_kinds[k][0]);
    if (c->n)
      print_time (other_kinds[k][1], length (c->spans, c->n), overall);
    free_category (c);
  }
  if (compute->n) {
    print_time ("Compute", comp_t, overall);
    print_time ("Compute Only", comp_t - both, overall);
  }
  for (k = 0; k < an->resources->len; k++) {
    const char *res = g_ptr_array_index (an->resources, k);
    category *c = collect (an, res, match_resource, res);
    if (c->n)
      print_time (res, length (c->spans, c->n), overall);
    free_category (c);
  }
  if (dma->n && compute->n)
    print_time ("Overlap", both, overall);
  if (device->n)
    print_time ("Idle", overall - length (device->spans, device->n), overall);
  if (host->n)
    print_time ("Host Copy", length (host->spans, host->n), overall);
  free_category (device);
  free_category (dma);
  free_category (compute);
  free_category (host);
}

int
main (int argc, char **argv)
{
  annotate an = { 0 };
  const char *out;
  int ret = EXIT_FAILURE;
  unsigned i;

  if (argc != 4) {
    fprintf (stderr, "usage: simnpu-annotate DEBUG_DIR runtime.csv "
        "OUT.{csv,xlsx,pb}\n");
    return EXIT_USAGE;
  }
  out = argv[3];
  an.actions = g_ptr_array_new_with_free_func (free_action);
  an.resources = g_ptr_array_new_with_free_func (g_free);
  an.rows = g_array_new (FALSE, TRUE, sizeof (row));
  an.job_core = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  if (read_debug (&an, argv[1]) < 0 || read_runtime (&an, argv[2]) < 0)
    goto done;
  g_array_sort (an.rows, compare_rows);

  if (g_str_has_suffix (out, ".csv")) {
    ret = write_csv (&an, out);
  } else if (g_str_has_suffix (out, ".pb")
      || g_str_has_suffix (out, ".pftrace")) {
    ret = write_perfetto (&an, out);
  } else if (g_str_has_suffix (out, ".xlsx")) {
#ifdef HAVE_XLSXWRITER
    ret = write_xlsx (&an, out);
#else
    fprintf (stderr, "simnpu-annotate: built without libxlsxwriter; write "
        ".csv or .pb instead\n");
    ret = -1;
#endif
  } else {
    fprintf (stderr, "simnpu-annotate: '%s': expected a .csv, .xlsx or .pb "
        "output\n", out);
    ret = -1;
  }
  if (ret < 0) {
    fprintf (stderr, "simnpu-annotate: writing '%s' failed\n", out);
    ret = EXIT_FAILURE;
    goto done;
  }
  printf ("annotated %u events into %s\n", an.rows->len, out);
  print_overview (&an);
  ret = EXIT_SUCCESS;

done:
  for (i = 0; i < an.rows->len; i++)
    g_free (g_array_index (an.rows, row, i).dispatch);
  g_array_free (an.rows, TRUE);
  g_ptr_array_free (an.actions, TRUE);
  g_ptr_array_free (an.resources, TRUE);
  g_hash_table_destroy (an.job_core);
  g_free (an.model);
  return ret;
}
