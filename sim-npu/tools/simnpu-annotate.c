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

#include "simnpu-file.h"
#include "axfile.h"
#include "simnpu-private.h"
#include "tools-util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_XLSXWRITER
#include <xlsxwriter.h>
#endif

#define TOOL "simnpu-annotate"
#define EXIT_USAGE 2
#define MAX_LINE 4096
#define HOST_COPY "host_copy"
#define JOB_CORE "job_core"
#define RUNTIME_HEADER \
  "dispatch_name,invocation_id,action_id,timestamp_us,event"
#define RUNTIME_FIELDS 5
#define DEBUG_HEADER "action_id,id,kind,resource,"
#define DEBUG_FIELDS 12
/* time stamps are CLOCK_MONOTONIC (since boot) in us: 10^15 us is 31
 * years, and a value above it is not one */
#define MAX_TIMESTAMP_US 1e15

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
  /* the model's name (annotate.model) or HOST_COPY */
  const char *dispatch;
  uint64_t job;
  unsigned action;
  double start_us;
  double end_us;
  const debug_action *info;
  const char *resource;
  /* the core or slice the action ran on, -1 for other resources */
  int slice;
} row;

typedef struct
{
  GPtrArray *actions;
  GPtrArray *resources;
  char *model;
  GArray *rows;
  GHashTable *job_core;
  /* the device's cores or slices: its first resources */
  unsigned n_slices;
} annotate;

/* The annotated CSV's columns after total_time, as the Torq profiling
 * guide names them: one flag per slice, then one per kind of transfer
 * and unit. */
#define SLICE_COLUMN_FMT "slice_used_%u_in_program"
#define TORQ_SLICES 2
static const char *const unit_columns[][2] = {
  {"DMA_IN", "dma_in_used_in_program"},
  {"DMA_OUT", "dma_out_used_in_program"},
  {"CDMA", "cdma_used_in_program"},
  {"CSS", "css_used_in_program"},
};

/* Times in the CSV and the workbook: µs to the nanosecond. */
#define TIME_DECIMALS 1000.0

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

/* Strict field parsers: atoi and strtoull take "-1" and garbage. */
static bool
parse_u64 (const char *s, uint64_t * out)
{
  char *end = NULL;

  if (!g_ascii_isdigit (s[0]))
    return false;
  errno = 0;
  *out = g_ascii_strtoull (s, &end, 10);
  return *end == '\0' && errno != ERANGE;
}

static bool
parse_u32 (const char *s, unsigned *out)
{
  uint64_t v;

  if (!parse_u64 (s, &v) || v > G_MAXUINT32)
    return false;
  *out = (unsigned) v;
  return true;
}

static bool
parse_time (const char *s, double *out)
{
  char *end = NULL;

  if (!g_ascii_isdigit (s[0]))
    return false;
  *out = g_ascii_strtod (s, &end);
  return *end == '\0' && isfinite (*out) && *out <= MAX_TIMESTAMP_US;
}

/* One file of a --debug-info dir, whole; says which when it is missing */
static gboolean
read_debug_file (const char *dir, const char *path, gchar ** contents)
{
  GError *err = NULL;

  if (simnpu__file_read (path, "debug info", SIMNPU_FILE_MAX_JSON_BYTES,
          contents, NULL, &err))
    return TRUE;
  fprintf (stderr, "simnpu-annotate: cannot read %s: %s (compile with "
      "--debug-info=%s)\n", path, err->message, dir);
  g_error_free (err);
  return FALSE;
}

static int
read_debug (annotate * an, const char *dir)
{
  gchar *path = g_build_filename (dir, "actions.csv", NULL);
  gchar *contents = NULL, **lines;
  unsigned i;
  int ret = -1;

  if (!read_debug_file (dir, path, &contents)) {
    g_free (path);
    return -1;
  }
  lines = g_strsplit (contents, "\n", -1);
  if (lines[0] == NULL || !g_str_has_prefix (lines[0], DEBUG_HEADER)) {
    fprintf (stderr, "simnpu-annotate: %s: expected the header %s\n", path,
        DEBUG_HEADER);
    goto out;
  }
  for (i = 1; lines[i] != NULL; i++) {
    GPtrArray *f;
    debug_action *a;
    unsigned id;
    if (lines[i][0] == '\0')
      continue;
    f = csv_split (lines[i]);
    if (f->len != DEBUG_FIELDS) {
      fprintf (stderr, "simnpu-annotate: %s line %u: %u fields; expected "
          "%u\n", path, i + 1, f->len, DEBUG_FIELDS);
      g_ptr_array_free (f, TRUE);
      goto out;
    }
    /* the runtime's action ids index the schedule: rows 0, 1, 2... */
    if (!parse_u32 (g_ptr_array_index (f, 0), &id) || id != an->actions->len) {
      fprintf (stderr, "simnpu-annotate: %s line %u: action_id '%s'; "
          "expected %u\n", path, i + 1,
          (const char *) g_ptr_array_index (f, 0), an->actions->len);
      g_ptr_array_free (f, TRUE);
      goto out;
    }
    a = g_new0 (debug_action, 1);
    a->action_id = id;
    a->id = g_strdup (g_ptr_array_index (f, 1));
    a->kind = g_strdup (g_ptr_array_index (f, 2));
    a->resource = g_strdup (g_ptr_array_index (f, 3));
    a->op_name = g_strdup (g_ptr_array_index (f, 5));
    a->op_type = g_strdup (g_ptr_array_index (f, 6));
    a->location = g_strdup (g_ptr_array_index (f, 7));
    g_ptr_array_add (an->actions, a);
    g_ptr_array_free (f, TRUE);
  }
  if (an->actions->len == 0) {
    fprintf (stderr, "simnpu-annotate: %s: no actions\n", path);
    goto out;
  }
  g_strfreev (lines);
  g_free (contents);
  g_free (path);

  path = g_build_filename (dir, "device.txt", NULL);
  if (!read_debug_file (dir, path, &contents)) {
    g_free (path);
    return -1;
  }
  lines = g_strsplit (contents, "\n", -1);
  for (i = 0; lines[i] != NULL; i++) {
    if (g_str_has_prefix (lines[i], "resource="))
      g_ptr_array_add (an->resources, g_strdup (lines[i] + 9));
    else if (g_str_has_prefix (lines[i], "model=") && an->model == NULL)
      an->model = g_strdup (lines[i] + 6);
  }
  /* the model name is what tells its rows from another model's */
  if (an->model == NULL || an->model[0] == '\0')
    fprintf (stderr, "simnpu-annotate: %s: no model= line\n", path);
  else
    ret = 0;
out:
  g_strfreev (lines);
  g_free (contents);
  g_free (path);
  return ret;
}

static char *
core_name (annotate * an, unsigned core)
{
  /* cores come first among the device's resources */
  if (core < an->resources->len)
    return g_ptr_array_index (an->resources, core);
  return "core";
}

/* A core or slice resource: "core0", "slice1" (simnpu-compile's names). */
static gboolean
is_slice_resource (const char *name)
{
  const char *d = g_str_has_prefix (name, "core") ? name + 4 :
      g_str_has_prefix (name, "slice") ? name + 5 : NULL;

  return d != NULL && g_ascii_isdigit (*d);
}

static void
count_slices (annotate * an)
{
  an->n_slices = 0;
  while (an->n_slices < an->resources->len &&
      is_slice_resource (g_ptr_array_index (an->resources, an->n_slices)))
    an->n_slices++;
}

/* One job of the model: which of its actions have been seen. */
typedef struct
{
  unsigned n_seen;
  unsigned first_line;
  guint8 *seen;
} job_actions;

static void
free_job_actions (gpointer p)
{
  job_actions *j = p;
  g_free (j->seen);
  g_free (j);
}

typedef struct
{
  double start;
  unsigned line;
} open_event;

typedef struct
{
  const char *path;
  unsigned line;
  GHashTable *open;             /* "dispatch/job/action" -> open_event */
  GHashTable *jobs;             /* job id -> job_actions */
  char *other_model;            /* the first other model's name */
  unsigned other_line;
  uint64_t n_other;
} runtime_reader;

static int
reader_fail (runtime_reader * rd, const char *fmt, ...)
G_GNUC_PRINTF (2, 3);

     static int reader_fail (runtime_reader * rd, const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "simnpu-annotate: %s line %u: ", rd->path, rd->line);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return -1;
}

/* Counts one action of the model for its job, whose first row is
 * @start_line if it is the job's first. */
static int
count_action (annotate * an, runtime_reader * rd, uint64_t job,
    unsigned action, unsigned start_line)
{
  unsigned n = an->actions->len;
  job_actions *j = g_hash_table_lookup (rd->jobs, &job);

  if (j == NULL) {
    j = g_new0 (job_actions, 1);
    j->seen = g_malloc0 ((n + 7) / 8);
    j->first_line = start_line;
    g_hash_table_insert (rd->jobs, g_memdup2 (&job, sizeof (job)), j);
  }
  if (j->seen[action / 8] & (1u << (action % 8)))
    return reader_fail (rd, "job %" G_GUINT64_FORMAT " action %u appears "
        "twice", (guint64) job, action);
  j->seen[action / 8] |= (guint8) (1u << (action % 8));
  j->n_seen++;
  return 0;
}

/* A start or end row of the model or of a host copy. */
static int
read_event (annotate * an, runtime_reader * rd, const char *dispatch,
    uint64_t job, unsigned action, double ts, bool start)
{
  gchar *key = g_strdup_printf ("%s/%" G_GUINT64_FORMAT "/%u", dispatch,
      (guint64) job, action);
  open_event *o = g_hash_table_lookup (rd->open, key);
  row r = { 0 };
  unsigned start_line;

  if (start) {
    if (o != NULL) {
      reader_fail (rd, "a second 'start' of %s job %" G_GUINT64_FORMAT
          " action %u (the first on line %u) without its 'end'", dispatch,
          (guint64) job, action, o->line);
      g_free (key);
      return -1;
    }
    o = g_new (open_event, 1);
    o->start = ts;
    o->line = rd->line;
    g_hash_table_insert (rd->open, key, o);
    return 0;
  }
  if (o == NULL) {
    reader_fail (rd, "'end' of %s job %" G_GUINT64_FORMAT " action %u "
        "without its 'start'", dispatch, (guint64) job, action);
    g_free (key);
    return -1;
  }
  if (ts < o->start) {
    reader_fail (rd, "%s job %" G_GUINT64_FORMAT " action %u ends at %.3f "
        "us, before its start at %.3f us (line %u)", dispatch, (guint64) job,
        action, ts, o->start, o->line);
    g_free (key);
    return -1;
  }
  r.dispatch = strcmp (dispatch, HOST_COPY) == 0 ? HOST_COPY : an->model;
  r.job = job;
  r.action = action;
  r.start_us = o->start;
  r.end_us = ts;
  g_array_append_val (an->rows, r);
  start_line = o->line;
  g_hash_table_remove (rd->open, key);
  g_free (key);
  if (strcmp (r.dispatch, HOST_COPY) != 0)
    return count_action (an, rd, job, action, start_line);
  return 0;
}

/* One data line of the runtime CSV. */
static int
read_runtime_line (annotate * an, runtime_reader * rd, const char *line)
{
  GPtrArray *f = csv_split (line);
  const char *dispatch, *event;
  uint64_t job;
  unsigned action;
  double ts;
  int ret = -1;

  if (f->len != RUNTIME_FIELDS) {
    reader_fail (rd, "%u fields; expected %u (%s)", f->len, RUNTIME_FIELDS,
        RUNTIME_HEADER);
    goto out;
  }
  dispatch = g_ptr_array_index (f, 0);
  event = g_ptr_array_index (f, 4);
  if (!parse_u64 (g_ptr_array_index (f, 1), &job)) {
    reader_fail (rd, "invocation_id '%s'; expected a job id (an unsigned "
        "integer)", (const char *) g_ptr_array_index (f, 1));
    goto out;
  }
  if (!parse_u32 (g_ptr_array_index (f, 2), &action)) {
    reader_fail (rd, "action_id '%s'; expected an unsigned integer",
        (const char *) g_ptr_array_index (f, 2));
    goto out;
  }
  if (!parse_time (g_ptr_array_index (f, 3), &ts)) {
    reader_fail (rd, "timestamp_us '%s'; expected a time in us from 0 to "
        "%g", (const char *) g_ptr_array_index (f, 3), MAX_TIMESTAMP_US);
    goto out;
  }
  if (strcmp (dispatch, JOB_CORE) == 0) {
    if (strcmp (event, "core") != 0) {
      reader_fail (rd, "event '%s'; a job_core row's is 'core'", event);
      goto out;
    }
    if (action >= MAX (an->resources->len, 1)) {
      reader_fail (rd, "core %u; the device of the debug info has %u "
          "resources", action, an->resources->len);
      goto out;
    }
    g_hash_table_insert (an->job_core, g_memdup2 (&job, sizeof (job)),
        GUINT_TO_POINTER (action + 1));
    ret = 0;
    goto out;
  }
  if (strcmp (event, "start") != 0 && strcmp (event, "end") != 0) {
    reader_fail (rd, "event '%s'; expected start or end", event);
    goto out;
  }
  if (strcmp (dispatch, HOST_COPY) != 0 && strcmp (dispatch, an->model) != 0) {
    /* a shared device profiles every model's jobs: another model's rows
     * are left out, and the run must have some of this model's */
    if (rd->other_model == NULL) {
      rd->other_model = g_strdup (dispatch);
      rd->other_line = rd->line;
    }
    rd->n_other++;
    ret = 0;
    goto out;
  }
  if (strcmp (dispatch, HOST_COPY) != 0 && action >= an->actions->len) {
    reader_fail (rd, "action_id %u, but the debug info of '%s' has %u "
        "actions (0 to %u): the CSV and the debug info come from different "
        "compiles", action, an->model, an->actions->len, an->actions->len - 1);
    goto out;
  }
  ret = read_event (an, rd, dispatch, job, action, ts,
      strcmp (event, "start") == 0);
out:
  g_ptr_array_free (f, TRUE);
  return ret;
}

/* After the last line: every event closed, every job complete. */
static int
check_runtime (annotate * an, runtime_reader * rd)
{
  GHashTableIter it;
  gpointer key, value;
  unsigned i, kept = 0;

  unsigned first = 0;
  job_actions *bad = NULL;
  uint64_t bad_job = 0;

  /* the first offending row, whatever the tables' order */
  g_hash_table_iter_init (&it, rd->open);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (first == 0 || ((open_event *) value)->line < first)
      first = ((open_event *) value)->line;
  if (first > 0) {
    rd->line = first;
    return reader_fail (rd, "'start' without its 'end' (a truncated " "file?)");
  }
  if (g_hash_table_size (rd->jobs) == 0) {
    if (rd->other_model) {
      rd->line = rd->other_line;
      return reader_fail (rd, "dispatch_name '%s', but the debug info is "
          "of '%s', and no row is: the CSV and the debug info come from "
          "different models", rd->other_model, an->model);
    }
    fprintf (stderr, "simnpu-annotate: %s: no events of '%s'\n", rd->path,
        an->model);
    return -1;
  }
  g_hash_table_iter_init (&it, rd->jobs);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    job_actions *j = value;
    if (j->n_seen != an->actions->len && (bad == NULL
            || j->first_line < bad->first_line)) {
      bad = j;
      bad_job = *(uint64_t *) key;
    }
  }
  if (bad != NULL) {
    rd->line = bad->first_line;
    return reader_fail (rd, "job %" G_GUINT64_FORMAT " has %u actions; the "
        "debug info of '%s' has %u: the CSV and the debug info come from "
        "different compiles, or the CSV is truncated", (guint64) bad_job,
        bad->n_seen, an->model, an->actions->len);
  }
  /* host copies of the model's jobs only */
  for (i = 0; i < an->rows->len; i++) {
    row *r = &g_array_index (an->rows, row, i);
    if (strcmp (r->dispatch, HOST_COPY) == 0
        && !g_hash_table_contains (rd->jobs, &r->job))
      continue;
    g_array_index (an->rows, row, kept++) = *r;
  }
  g_array_set_size (an->rows, kept);
  if (rd->n_other > 0)
    printf ("note: %s: %" G_GUINT64_FORMAT " rows of other models on the "
        "same device (the first, '%s', on line %u) are left out\n",
        rd->path, (guint64) rd->n_other, rd->other_model, rd->other_line);
  return 0;
}

static int
read_runtime (annotate * an, const char *path)
{
  GError *err = NULL;
  /* a regular file only: a FIFO would block, a device never end */
  int fd = simnpu__file_open (path, "runtime CSV", &err);
  FILE *f = fd >= 0 ? fdopen (fd, "r") : NULL;
  runtime_reader rd = { 0 };
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int ret = -1;
  unsigned i;

  if (f == NULL) {
    fprintf (stderr, "simnpu-annotate: cannot read %s: %s\n", path,
        err ? err->message : g_strerror (errno));
    g_clear_error (&err);
    if (fd >= 0)
      close (fd);
    return -1;
  }
  rd.path = path;
  rd.open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  rd.jobs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      free_job_actions);
  /* line by line: a large profile is never held whole */
  while ((len = getline (&line, &cap, f)) >= 0) {
    rd.line++;
    if (len == 0 || line[len - 1] != '\n') {
      reader_fail (&rd, "no end of line (a truncated file?)");
      goto out;
    }
    if ((size_t) len != strlen (line)) {
      reader_fail (&rd, "a NUL byte: not a runtime CSV");
      goto out;
    }
    if (rd.line == 1) {
      if (!g_str_has_prefix (line, RUNTIME_HEADER)) {
        fprintf (stderr, "simnpu-annotate: %s: expected the header %s\n",
            path, RUNTIME_HEADER);
        goto out;
      }
      continue;
    }
    if (line[0] == '\n' || (line[0] == '\r' && line[1] == '\n'))
      continue;
    if (read_runtime_line (an, &rd, line) < 0)
      goto out;
  }
  if (ferror (f)) {
    fprintf (stderr, "simnpu-annotate: %s: %s\n", path, g_strerror (errno));
    goto out;
  }
  if (rd.line == 0) {
    fprintf (stderr, "simnpu-annotate: %s: empty; expected the header %s\n",
        path, RUNTIME_HEADER);
    goto out;
  }
  if (check_runtime (an, &rd) < 0)
    goto out;

  count_slices (an);
  for (i = 0; i < an->rows->len; i++) {
    row *r = &g_array_index (an->rows, row, i);
    unsigned k;
    r->slice = -1;
    if (strcmp (r->dispatch, HOST_COPY) == 0) {
      r->resource = "host";
      continue;
    }
    r->info = g_ptr_array_index (an->actions, r->action);
    if (strcmp (r->info->resource, "core") == 0) {
      gpointer c = g_hash_table_lookup (an->job_core, &r->job);
      r->resource = c ? core_name (an, GPOINTER_TO_UINT (c) - 1) : "core";
    } else {
      r->resource = r->info->resource;
    }
    for (k = 0; k < an->n_slices; k++)
      if (strcmp (r->resource, g_ptr_array_index (an->resources, k)) == 0)
        r->slice = (int) k;
  }
  ret = 0;
out:
  free (line);
  fclose (f);
  g_hash_table_destroy (rd.open);
  g_hash_table_destroy (rd.jobs);
  g_free (rd.other_model);
  return ret;
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

/* Slice columns: the guide's two, or as many as the device has cores. */
static unsigned
n_slice_columns (const annotate * an)
{
  return MAX (an->n_slices, TORQ_SLICES);
}

/* The flag of unit column @k for @r: the action's kind, whichever engine
 * ran it (a shared DMA engine moves both ways). */
static int
unit_flag (const row * r, unsigned k)
{
  return r->info != NULL && strcmp (r->info->kind, unit_columns[k][0]) == 0;
}

static double
round_time (double us)
{
  double scaled = us * TIME_DECIMALS;

  return (double) (gint64) (scaled + (scaled < 0 ? -0.5 : 0.5)) / TIME_DECIMALS;
}

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
  for (k = 0; k < n_slice_columns (an); k++)
    fprintf (f, "," SLICE_COLUMN_FMT, k);
  for (k = 0; k < G_N_ELEMENTS (unit_columns); k++)
    fprintf (f, ",%s", unit_columns[k][1]);
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
    for (k = 0; k < n_slice_columns (an); k++)
      fprintf (f, ",%d", r->slice == (int) k);
    for (k = 0; k < G_N_ELEMENTS (unit_columns); k++)
      fprintf (f, ",%d", unit_flag (r, k));
    fprintf (f, ",%.3f,%.3f,", r->start_us, r->end_us);
    csv_field (f, r->info ? r->info->location : "");
    fputc ('\n', f);
  }
  return fclose (f) == 0 ? 0 : -1;
}

#ifdef HAVE_XLSXWRITER
/* Rows per sheet, the header's included: Excel's limit, or a lower one
 * from SIMNPU_ANNOTATE_XLSX_MAX_ROWS (which lets the tests see the
 * rollover without a million events). */
static lxw_row_t
xlsx_rows_per_sheet (void)
{
  const char *env = g_getenv ("SIMNPU_ANNOTATE_XLSX_MAX_ROWS");
  guint64 v;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 2, LXW_ROW_MAX,
          &v, NULL))
    return (lxw_row_t) v;
  return LXW_ROW_MAX;
}

static void
xlsx_header (annotate * an, lxw_worksheet * ws)
{
  unsigned k, col;
  static const char *const head[] = { "action_id", "job_id", "operation",
    "invocation_names", "original_operators", "total_time"
  };

  for (col = 0; col < G_N_ELEMENTS (head); col++)
    worksheet_write_string (ws, 0, col, head[col], NULL);
  for (k = 0; k < n_slice_columns (an); k++) {
    gchar *h = g_strdup_printf (SLICE_COLUMN_FMT, k);
    worksheet_write_string (ws, 0, col++, h, NULL);
    g_free (h);
  }
  for (k = 0; k < G_N_ELEMENTS (unit_columns); k++)
    worksheet_write_string (ws, 0, col++, unit_columns[k][1], NULL);
  worksheet_write_string (ws, 0, col++, "timestamp_start", NULL);
  worksheet_write_string (ws, 0, col++, "timestamp_end", NULL);
  worksheet_write_string (ws, 0, col++, "location", NULL);
}

static void
xlsx_row (annotate * an, lxw_worksheet * ws, lxw_row_t y, const row * r)
{
  unsigned k, col = 0;

  worksheet_write_number (ws, y, col++, r->action, NULL);
  worksheet_write_number (ws, y, col++, (double) r->job, NULL);
  worksheet_write_string (ws, y, col++, operation (r), NULL);
  worksheet_write_string (ws, y, col++, r->resource, NULL);
  worksheet_write_string (ws, y, col++, r->info ? r->info->op_name : "", NULL);
  worksheet_write_number (ws, y, col++,
      round_time (r->end_us - r->start_us), NULL);
  for (k = 0; k < n_slice_columns (an); k++)
    worksheet_write_number (ws, y, col++, r->slice == (int) k, NULL);
  for (k = 0; k < G_N_ELEMENTS (unit_columns); k++)
    worksheet_write_number (ws, y, col++, unit_flag (r, k), NULL);
  worksheet_write_number (ws, y, col++, round_time (r->start_us), NULL);
  worksheet_write_number (ws, y, col++, round_time (r->end_us), NULL);
  worksheet_write_string (ws, y, col++, r->info ? r->info->location : "", NULL);
}

/* The rows go on as many sheets as Excel's row limit needs ("annotated",
 * "annotated 2", ...), each with the header; *@n_sheets says how many.
 * constant_memory writes each row out once the next begins, so memory
 * stays that of one row whatever the count. */
static int
write_xlsx (annotate * an, const char *path, unsigned *n_sheets)
{
  lxw_workbook_options opt = {.constant_memory = LXW_TRUE };
  lxw_workbook *wb = workbook_new_opt (path, &opt);
  lxw_row_t per_sheet = xlsx_rows_per_sheet ();
  unsigned i = 0;

  *n_sheets = 0;
  if (wb == NULL)
    return -1;
  do {
    gchar *name = *n_sheets == 0 ? g_strdup ("annotated") :
        g_strdup_printf ("annotated %u", *n_sheets + 1);
    lxw_worksheet *ws = workbook_add_worksheet (wb, name);
    lxw_row_t y;

    g_free (name);
    if (ws == NULL) {
      workbook_close (wb);
      return -1;
    }
    (*n_sheets)++;
    xlsx_header (an, ws);
    for (y = 1; y < per_sheet && i < an->rows->len; y++, i++)
      xlsx_row (an, ws, y, &g_array_index (an->rows, row, i));
  } while (i < an->rows->len);
  return workbook_close (wb) == LXW_NO_ERROR ? 0 : -1;
}
#endif

/* Minimal protobuf encoding of a Perfetto trace: a track per resource
 * (TrackDescriptor) and a slice begin/end pair (TrackEvent) per row, the
 * field numbers of Perfetto's trace_packet.proto, track_descriptor.proto
 * and track_event.proto. A slice on a track must begin and end inside
 * the slice it begins in, so transfers each way get their own track (a
 * shared DMA engine moves data in and out within one transfer's span), and
 * a row that overlaps the last one on its track goes to a further lane. */
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

typedef struct
{
  gchar *name;
  double end_us;
} pb_track;

typedef struct
{
  uint64_t ts_ns;
  gboolean begin;
  unsigned track;
  /* the row's index, for its slice name */
  unsigned row;
  gboolean zero;
} pb_edge;

/* The track a row is drawn on before lanes: its resource, or for a DMA
 * engine that moves both ways, the resource and the direction. */
static gchar *
track_label (const row * r)
{
  gboolean in = r->info && strcmp (r->info->kind, "DMA_IN") == 0;
  gboolean out = r->info && strcmp (r->info->kind, "DMA_OUT") == 0;

  if ((in && !g_str_has_suffix (r->resource, "_in")) ||
      (out && !g_str_has_suffix (r->resource, "_out")))
    return g_strdup_printf ("%s %s", r->resource, in ? "in" : "out");
  return g_strdup (r->resource);
}

/* The track of a row starting at @start_us: the first lane of @label free
 * at that time, made when none is. */
static unsigned
track_for (GPtrArray * tracks, const char *label, double start_us,
    double end_us)
{
  unsigned k, lane = 1;

  for (k = 0; k < tracks->len; k++) {
    pb_track *t = g_ptr_array_index (tracks, k);
    gchar *want = lane == 1 ? g_strdup (label) :
        g_strdup_printf ("%s #%u", label, lane);
    gboolean same = strcmp (t->name, want) == 0;

    g_free (want);
    if (!same)
      continue;
    if (t->end_us <= start_us) {
      t->end_us = end_us;
      return k;
    }
    lane++;
    k = (unsigned) -1;
  }
  {
    pb_track *t = g_new0 (pb_track, 1);

    t->name = lane == 1 ? g_strdup (label) :
        g_strdup_printf ("%s #%u", label, lane);
    t->end_us = end_us;
    g_ptr_array_add (tracks, t);
  }
  return tracks->len - 1;
}

static void
free_track (gpointer p)
{
  pb_track *t = p;

  g_free (t->name);
  g_free (t);
}

/* µs below which a time in ns fits a uint64 (2^64 ns is 1.8447e16 µs) */
#define MAX_NS_IN_US 1.8e16

static uint64_t
us_to_ns (double us)
{
  /* NaN and negative times are 0; absurdly large ones saturate */
  if (!(us > 0))
    return 0;
  return us < MAX_NS_IN_US ? (uint64_t) (us * 1000.0 + 0.5) : G_MAXUINT64;
}

/* The order of edges at one time: ends first, so that a slice that ends
 * where the next one on its track begins closes first; then slices of
 * no length, each begin followed by its end; then begins. */
static int
edge_class (const pb_edge * e)
{
  if (e->zero)
    return 1;
  return e->begin ? 2 : 0;
}

static int
compare_edges (const void *pa, const void *pb)
{
  const pb_edge *a = pa, *b = pb;
  int ca = edge_class (a), cb = edge_class (b);

  if (a->ts_ns != b->ts_ns)
    return a->ts_ns < b->ts_ns ? -1 : 1;
  if (ca != cb)
    return ca < cb ? -1 : 1;
  if (a->row != b->row)
    return a->row < b->row ? -1 : 1;
  return a->begin == b->begin ? 0 : a->begin ? -1 : 1;
}

static int
write_perfetto (annotate * an, const char *path)
{
  GByteArray *out = g_byte_array_new (), *p = g_byte_array_new ();
  GByteArray *sub = g_byte_array_new ();
  GPtrArray *tracks = g_ptr_array_new_with_free_func (free_track);
  pb_edge *edges = g_new (pb_edge, 2 * an->rows->len + 1);
  unsigned i, k, n = 0;
  GError *err = NULL;
  gboolean ok;

  for (i = 0; i < an->rows->len; i++) {
    const row *r = &g_array_index (an->rows, row, i);
    gchar *label = track_label (r);
    unsigned track = track_for (tracks, label, r->start_us, r->end_us);
    uint64_t b = us_to_ns (r->start_us), e = us_to_ns (r->end_us);

    g_free (label);
    e = MAX (b, e);
    edges[n++] = (pb_edge) {
    b, TRUE, track, i, b == e};
    edges[n++] = (pb_edge) {
    e, FALSE, track, i, b == e};
  }
  qsort (edges, n, sizeof (pb_edge), compare_edges);

  for (k = 0; k < tracks->len; k++) {
    const pb_track *t = g_ptr_array_index (tracks, k);
    pb_uint (sub, PB_TRACK_UUID, TRACK_UUID_BASE + k);
    pb_bytes (sub, PB_TRACK_NAME, t->name, strlen (t->name));
    pb_bytes (p, PB_PACKET_TRACK_DESCRIPTOR, sub->data, sub->len);
    g_byte_array_set_size (sub, 0);
    pb_packet (out, p);
  }
  for (i = 0; i < n; i++) {
    const pb_edge *e = &edges[i];
    const row *r = &g_array_index (an->rows, row, e->row);
    pb_uint (sub, PB_EVENT_TYPE, e->begin ? PB_SLICE_BEGIN : PB_SLICE_END);
    pb_uint (sub, PB_EVENT_TRACK_UUID, TRACK_UUID_BASE + e->track);
    if (e->begin) {
      gchar *name = g_strdup_printf ("%s %s #%" G_GUINT64_FORMAT,
          r->info ? r->info->id : "host", r->info && r->info->op_name[0] ?
          r->info->op_name : operation (r), (guint64) r->job);
      pb_bytes (sub, PB_EVENT_NAME, name, strlen (name));
      g_free (name);
    }
    pb_uint (p, PB_PACKET_TIMESTAMP, e->ts_ns);
    pb_uint (p, PB_PACKET_SEQUENCE_ID, PB_SEQUENCE_ID);
    pb_bytes (p, PB_PACKET_TRACK_EVENT, sub->data, sub->len);
    g_byte_array_set_size (sub, 0);
    pb_packet (out, p);
  }
  /* a regular file is replaced atomically; /dev/null or a FIFO is
   * written into, never replaced by a regular file */
  ok = ax_file_write (path, (const gchar *) out->data, out->len, FALSE, &err);
  if (!ok) {
    fprintf (stderr, "simnpu-annotate: %s\n", err->message);
    g_error_free (err);
  }
  g_byte_array_free (out, TRUE);
  g_byte_array_free (p, TRUE);
  g_byte_array_free (sub, TRUE);
  g_ptr_array_free (tracks, TRUE);
  g_free (edges);
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

/* A resource's row label in the Torq guide's style: words capitalised,
 * an index apart ("slice0" -> "Slice 0", "dma_in" -> "Dma In"). */
static gchar *
overview_label (const char *resource)
{
  GString *l = g_string_new (NULL);
  gboolean word_start = TRUE;
  const char *c;

  for (c = resource; *c; c++) {
    if (*c == '_' || *c == ' ') {
      g_string_append_c (l, ' ');
      word_start = TRUE;
      continue;
    }
    if (g_ascii_isdigit (*c) && c > resource && !g_ascii_isdigit (c[-1]) &&
        c[-1] != '_' && c[-1] != ' ')
      g_string_append_c (l, ' ');
    g_string_append_c (l, word_start ? g_ascii_toupper (*c) : *c);
    word_start = FALSE;
  }
  return g_string_free (l, FALSE);
}

/* Prints a row unless one of the same name (in any case) was printed:
 * a resource named like a category ("cdma" and the CDMA actions) is the
 * same figure. */
static void
overview_row (GPtrArray * printed, const char *label, double us, double overall)
{
  unsigned i;

  for (i = 0; i < printed->len; i++)
    if (g_ascii_strcasecmp (g_ptr_array_index (printed, i), label) == 0)
      return;
  g_ptr_array_add (printed, g_strdup (label));
  print_time (label, us, overall);
}

static gboolean
match_slice (const row * r, const void *unused)
{
  return r->info != NULL && r->slice >= 0;
}

static gboolean
match_dma_total (const row * r, const void *unused)
{
  return match_dma (r, NULL) || match_kind (r, "CDMA");
}

/* Prints the category of the rows @match selects, when there are any. */
static void
overview_category (annotate * an, GPtrArray * printed, const char *label,
    gboolean (*match) (const row *, const void *), const void *data,
    double overall)
{
  category *c = collect (an, label, match, data);

  if (c->n)
    overview_row (printed, label, length (c->spans, c->n), overall);
  free_category (c);
}

/* The resources from @first to @last (exclusive), each as its own row. */
static void
overview_resources (annotate * an, GPtrArray * printed, unsigned first,
    unsigned last, double overall)
{
  unsigned k;

  for (k = first; k < last; k++) {
    const char *res = g_ptr_array_index (an->resources, k);
    gchar *label = overview_label (res);

    overview_category (an, printed, label, match_resource, res, overall);
    g_free (label);
  }
}

static void
print_overview (annotate * an)
{
  category *device = collect (an, "device", match_device, NULL);
  category *dma = collect (an, "Dma", match_dma, NULL);
  category *compute = collect (an, "Compute", match_kind, "COMPUTE");
  category *host = collect (an, "Host Copy", match_host_copy, NULL);
  GPtrArray *printed = g_ptr_array_new_with_free_func (g_free);
  double first = G_MAXDOUBLE, last = 0, overall, dma_t, comp_t, both;
  gchar *slices = NULL;
  unsigned i;

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
    overview_row (printed, "Dma", dma_t, overall);
    overview_row (printed, "Dma Only", dma_t - both, overall);
  }
  /* the DMA engines after the cores, before CDMA and CSS */
  for (i = an->n_slices; i < an->resources->len; i++) {
    const char *res = g_ptr_array_index (an->resources, i);
    if (g_ascii_strncasecmp (res, "dma", 3) != 0)
      break;
  }
  overview_resources (an, printed, an->n_slices, i, overall);
  if (dma->n)
    overview_category (an, printed, "Dma Total", match_dma_total, NULL,
        overall);
  overview_category (an, printed, "Cdma", match_kind, "CDMA", overall);
  if (compute->n) {
    overview_row (printed, "Compute", comp_t, overall);
    overview_row (printed, "Compute Only", comp_t - both, overall);
  }
  /* the cores or slices together, named as the device names them */
  if (an->n_slices > 0) {
    slices = overview_label (g_ptr_array_index (an->resources, 0));
    if (strchr (slices, ' '))
      *strchr (slices, ' ') = '\0';
    overview_category (an, printed, slices, match_slice, NULL, overall);
  }
  overview_resources (an, printed, 0, an->n_slices, overall);
  overview_category (an, printed, "Css", match_kind, "CSS", overall);
  overview_resources (an, printed, an->n_slices, an->resources->len, overall);
  if (dma->n && compute->n)
    overview_row (printed, "Overlap", both, overall);
  if (device->n)
    overview_row (printed, "Idle", overall - length (device->spans,
            device->n), overall);
  if (host->n)
    overview_row (printed, "Host Copy", length (host->spans, host->n), overall);
  g_free (slices);
  g_ptr_array_free (printed, TRUE);
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
  gchar *inputs[3];
  int ret = EXIT_FAILURE;
  unsigned n_sheets = 0, i;

  if (argc != 4) {
    fprintf (stderr, "usage: simnpu-annotate DEBUG_DIR runtime.csv "
        "OUT.{csv,xlsx,pb}\n");
    return EXIT_USAGE;
  }
  out = argv[3];
  /* checked before reading: a CSV output is written in place */
  inputs[0] = g_build_filename (argv[1], "actions.csv", NULL);
  inputs[1] = g_build_filename (argv[1], "device.txt", NULL);
  inputs[2] = g_strdup (argv[2]);
  if (simnpu_tools_check_output (TOOL, "OUT", out,
          (const char *const *) inputs, G_N_ELEMENTS (inputs)) < 0) {
    for (i = 0; i < G_N_ELEMENTS (inputs); i++)
      g_free (inputs[i]);
    return EXIT_USAGE;
  }
  for (i = 0; i < G_N_ELEMENTS (inputs); i++)
    g_free (inputs[i]);
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
    ret = write_xlsx (&an, out, &n_sheets);
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
  if (n_sheets > 1)
    printf ("note: more rows than an Excel sheet holds: the events go on "
        "%u sheets, 'annotated' to 'annotated %u'\n", n_sheets, n_sheets);
  print_overview (&an);
  ret = EXIT_SUCCESS;

done:
  g_array_free (an.rows, TRUE);
  g_ptr_array_free (an.actions, TRUE);
  g_ptr_array_free (an.resources, TRUE);
  g_hash_table_destroy (an.job_core);
  g_free (an.model);
  return ret;
}
