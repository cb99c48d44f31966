/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Task agreement of a compiled model with its float model: what the
 * model's decoder would make of the int8 outputs against what it makes
 * of the float ones, on the outputs simnpu-compile writes with
 * SIMNPU_COMPILE_DUMP_OUTPUTS=DIR (I-J.float.f32, I-J.int8.f32 and
 * outputs.txt). Shared by bench/zoo and the tests.
 *
 * A task is one line: KIND OUTPUT [OUTPUT2] [PARAMETERS], an output
 * named by its tensor name or by its shape as @1x195:
 *
 *   class OUT            classifier: the images whose top-1 class (a
 *                        single value: the side of 0.5) is the same
 *   mask OUT T           segmentation: IoU of the masks above T (two
 *                        channels: channel 1 above channel 0), mean
 *                        over the images
 *   points OUT S PX      landmarks: S values per point, x and y first,
 *                        PX input pixels per unit: the mean distance
 *   heat OUT PX          heat-map keypoints: each channel's peak, PX
 *                        input pixels per cell: the mean distance
 *   ssd SCORES BOXES L   anchor detector: the anchors whose float score
 *                        (a logit when L is "logit") marks a detection
 *                        (0.5), found again when the int8 score does
 *                        and the int8 box (cx, cy, w, h, the first four
 *                        values) overlaps the float one at IoU >= 0.5
 */

#ifndef __SIMNPU_TASK_AGREE_H__
#define __SIMNPU_TASK_AGREE_H__

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASK_MAX_OUTPUTS 64
#define TASK_MAX_RANK 8
#define TASK_SCORE 0.5
#define TASK_IOU 0.5

typedef struct
{
  gchar *name;
  gint64 dims[TASK_MAX_RANK];
  guint rank;
  gint64 count;
} task_output;

typedef struct
{
  task_output out[TASK_MAX_OUTPUTS];
  guint n_out, n_images;
} task_dump;

/* The figure of one task: matched of total (class, ssd), or a mean (mask
 * IoU, distance in pixels) */
typedef struct
{
  const gchar *kind;
  guint matched, total;
  double sum;
  guint n;
} task_figure;

static inline void
task_dump_clear (task_dump * d)
{
  guint i;

  for (i = 0; i < d->n_out; i++)
    g_free (d->out[i].name);
  memset (d, 0, sizeof (*d));
}

/* removes a dump's directory and its files */
static inline void
task_dump_remove (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *f = g_build_filename (dir, n, NULL);
    g_unlink (f);
    g_free (f);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

static inline gboolean
task_dump_read (const gchar * dir, task_dump * d)
{
  gchar *file = g_build_filename (dir, "outputs.txt", NULL);
  gchar *text = NULL, **lines;
  guint i;

  memset (d, 0, sizeof (*d));
  if (!g_file_get_contents (file, &text, NULL, NULL)) {
    g_free (file);
    return FALSE;
  }
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    gchar **f = g_strsplit (lines[i], " ", -1);
    guint n = g_strv_length (f), k;
    if (n == 2 && strcmp (f[0], "images") == 0)
      d->n_images = (guint) atoi (f[1]);
    else if (n >= 2 && d->n_out < TASK_MAX_OUTPUTS) {
      task_output *o = &d->out[d->n_out++];
      o->name = g_strdup (f[1]);
      o->count = 1;
      for (k = 2; k < n && o->rank < TASK_MAX_RANK; k++) {
        o->dims[o->rank] = g_ascii_strtoll (f[k], NULL, 10);
        o->count *= o->dims[o->rank++];
      }
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (file);
  return d->n_images > 0;
}

/* the output named NAME or of shape @AxB..., -1 when none */
static inline int
task_find (const task_dump * d, const gchar * sel)
{
  guint i, k;

  for (i = 0; i < d->n_out; i++) {
    if (sel[0] == '@') {
      GString *s = g_string_new ("@");
      gboolean same;
      for (k = 0; k < d->out[i].rank; k++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? "x" : "",
            d->out[i].dims[k]);
      same = strcmp (s->str, sel) == 0;
      g_string_free (s, TRUE);
      if (same)
        return (int) i;
    } else if (strcmp (d->out[i].name, sel) == 0) {
      return (int) i;
    }
  }
  return -1;
}

static inline float *
task_load (const gchar * dir, guint image, int out, const gchar * kind,
    gint64 count)
{
  gchar *file = g_strdup_printf ("%s/%u-%d.%s.f32", dir, image, out, kind);
  gchar *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (file, &data, &len, NULL)
      || len != (gsize) count * sizeof (float)) {
    g_free (data);
    data = NULL;
  }
  g_free (file);
  return (float *) data;
}

static inline gint64
task_argmax (const float *v, gint64 n, gint64 stride)
{
  gint64 k, best = 0;

  for (k = 1; k < n; k++)
    if (v[k * stride] > v[best * stride])
      best = k;
  return best;
}

static inline double
task_iou (const float *a, const float *b)
{
  double ax0 = a[0] - a[2] / 2, ax1 = a[0] + a[2] / 2;
  double ay0 = a[1] - a[3] / 2, ay1 = a[1] + a[3] / 2;
  double bx0 = b[0] - b[2] / 2, bx1 = b[0] + b[2] / 2;
  double by0 = b[1] - b[3] / 2, by1 = b[1] + b[3] / 2;
  double iw = MIN (ax1, bx1) - MAX (ax0, bx0);
  double ih = MIN (ay1, by1) - MAX (ay0, by0);
  double inter = iw > 0 && ih > 0 ? iw * ih : 0.0;
  double uni = fabs (a[2] * a[3]) + fabs (b[2] * b[3]) - inter;

  return uni > 0 ? inter / uni : 0.0;
}

/* One image of one task into f */
static inline void
task_image (const gchar * kind, gchar ** arg, const task_output * o,
    const task_output * o2, const float *fl, const float *q, const float *fl2,
    const float *q2, task_figure * f)
{
  gint64 inner = o->rank ? o->dims[o->rank - 1] : 1;
  gint64 k, n = o->count / inner;

  if (strcmp (kind, "class") == 0) {
    gboolean same = inner == 1 ? (fl[0] > 0.5f) == (q[0] > 0.5f) :
        task_argmax (fl, inner, 1) == task_argmax (q, inner, 1);
    f->matched += same;
    f->total++;
  } else if (strcmp (kind, "mask") == 0) {
    double t = g_ascii_strtod (arg[0], NULL);
    guint64 inter = 0, uni = 0;
    for (k = 0; k < n; k++) {
      gboolean a = inner == 2 ? fl[2 * k + 1] > fl[2 * k] : fl[k] > t;
      gboolean b = inner == 2 ? q[2 * k + 1] > q[2 * k] : q[k] > t;
      inter += a && b;
      uni += a || b;
    }
    if (uni > 0) {
      f->sum += (double) inter / uni;
      f->n++;
    }
  } else if (strcmp (kind, "points") == 0) {
    gint64 s = g_ascii_strtoll (arg[0], NULL, 10);
    double px = g_ascii_strtod (arg[1], NULL);
    for (k = 0; s >= 2 && k + 1 < o->count; k += s) {
      f->sum += px * hypot (fl[k] - q[k], fl[k + 1] - q[k + 1]);
      f->n++;
    }
  } else if (strcmp (kind, "heat") == 0 && o->rank == 4) {
    double px = g_ascii_strtod (arg[0], NULL);
    gint64 c, w = o->dims[2];
    for (c = 0; c < inner; c++) {
      gint64 a = task_argmax (fl + c, n, inner), b =
          task_argmax (q + c, n, inner);
      f->sum += px * hypot ((double) (a % w - b % w), (double) (a / w - b / w));
      f->n++;
    }
  } else if (strcmp (kind, "ssd") == 0 && o2) {
    gboolean logit = arg[0] && strcmp (arg[0], "logit") == 0;
    gint64 bs = o2->rank ? o2->dims[o2->rank - 1] : 1;
    double t = logit ? 0.0 : TASK_SCORE;
    for (k = 0; k < n && bs >= 4 && o2->count / bs == n; k++) {
      if (!(fl[k * inner] >= t))
        continue;
      f->total++;
      f->matched += q[k * inner] >= t
          && task_iou (fl2 + k * bs, q2 + k * bs) >= TASK_IOU;
    }
  }
}

/* Task LINE over the dump in DIR into f (added to what f holds); FALSE
 * when the line names no output of the dump or an unknown kind */
static inline gboolean
task_measure (const gchar * dir, const task_dump * d, const gchar * line,
    task_figure * f)
{
  gchar **w = g_strsplit (line, " ", -1);
  guint n = g_strv_length (w), i, first_arg = 2;
  int a = n >= 2 ? task_find (d, w[1]) : -1, b = -1;
  gboolean ok = a >= 0;

  if (ok && strcmp (w[0], "ssd") == 0) {
    b = n >= 3 ? task_find (d, w[2]) : -1;
    ok = b >= 0;
    first_arg = 3;
  }
  if (ok && (strcmp (w[0], "mask") == 0 || strcmp (w[0], "points") == 0
          || strcmp (w[0], "heat") == 0))
    ok = n >= first_arg + (strcmp (w[0], "points") == 0 ? 2 : 1);
  ok = ok && (strcmp (w[0], "class") == 0 || strcmp (w[0], "mask") == 0
      || strcmp (w[0], "points") == 0 || strcmp (w[0], "heat") == 0
      || strcmp (w[0], "ssd") == 0);
  for (i = 0; ok && i < d->n_images; i++) {
    float *fl = task_load (dir, i, a, "float", d->out[a].count);
    float *q = task_load (dir, i, a, "int8", d->out[a].count);
    float *fl2 = b >= 0 ? task_load (dir, i, b, "float", d->out[b].count) :
        NULL;
    float *q2 = b >= 0 ? task_load (dir, i, b, "int8", d->out[b].count) : NULL;
    ok = fl && q && (b < 0 || (fl2 && q2));
    if (ok)
      task_image (w[0], w + first_arg, &d->out[a], b >= 0 ? &d->out[b] :
          NULL, fl, q, fl2, q2, f);
    g_free (fl);
    g_free (q);
    g_free (fl2);
    g_free (q2);
  }
  if (ok)
    f->kind = g_intern_string (w[0]);
  g_strfreev (w);
  return ok;
}

/* "top-1 19/20", "IoU 0.93", "2.1 px", "boxes 9/9" */
static inline gchar *
task_figure_text (const task_figure * f)
{
  if (f->kind == NULL)
    return g_strdup ("-");
  if (strcmp (f->kind, "class") == 0)
    return g_strdup_printf ("top-1 %u/%u", f->matched, f->total);
  if (strcmp (f->kind, "ssd") == 0)
    return g_strdup_printf ("boxes %u/%u", f->matched, f->total);
  if (f->n == 0)
    return g_strdup ("-");
  if (strcmp (f->kind, "mask") == 0)
    return g_strdup_printf ("IoU %.3f", f->sum / f->n);
  return g_strdup_printf ("%.1f px", f->sum / f->n);
}

#endif /* __SIMNPU_TASK_AGREE_H__ */
