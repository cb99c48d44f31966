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
 *
 * Detectors decoded as their own users decode them: the float outputs and
 * the int8 outputs each give a list of detections (score above T, then
 * greedy class-agnostic NMS dropping a box whose IoU with a kept one is
 * above NMS, at most MAX boxes, 0 for no cap: tf.image's
 * nonMaxSuppression); a float detection is found again when an int8
 * detection of the same class, not taken by a better float one, overlaps
 * it at IoU >= TASK_IOU. The figure is "boxes found/float detections".
 * T, NMS and MAX are the model's own (bench/zoo/tasks.txt says whose),
 * not TASK_SCORE. A row is the values at one index of every output
 * named, one after the other; options are KEY=VALUE:
 *
 *   boxes OUT... T NMS MAX layout=L
 *                        decoded rows: L names each value of a row, x y
 *                        (first corner), X Y (second corner), s (score),
 *                        c (one class's score), . (unused); with s, no
 *                        class; with c instead, the score is the largest
 *                        c and the class its rank among the c (the
 *                        first of equal ones), NMS still across classes
 *                        (human's handtrack.ts: its background and face
 *                        columns are ".", T 0.5, NMS 0.2)
 *   anchor OUT... T NMS MAX grids=GxA,... size=S [scale=K]
 *                        SSD with generated anchors: a row is a score
 *                        logit (sigmoid), then the box centre's offset
 *                        from the anchor's and its size, in input
 *                        pixels; the anchors, of S input pixels a side,
 *                        are grid by grid (GxG cells, A anchors a cell),
 *                        row by row, centred in their cells (human's
 *                        handpose and facemesh detectors: T 0.5 and 0.2,
 *                        NMS 0.2 and 0.1); scale=K: the box's width and
 *                        height times K (human's blazeposedetector.ts:
 *                        its crop factor 5, T and NMS 0.1, one box)
 *   grid HEAT DIST [HEAT DIST]... T NMS MAX scale=K [centre=O] [peak]
 *                        [top=N] [clamp] [skip=C]
 *                        anchor-free grid: HEAT a square grid of class
 *                        scores (cells x classes), DIST the box's four
 *                        distances from the point (left, top, right,
 *                        bottom) at the same cells, each one value or B
 *                        bins whose argmax is the distance; a box for
 *                        each cell and class above T, at the point
 *                        (column + O, row + O) cells (O 0 unless given),
 *                        its distances times K cells, in units of the
 *                        image (each grid its own cell size); peak: only
 *                        a cell at the maximum of its 3x3 neighbours;
 *                        top=N: the N best of those; clamp: the box's
 *                        corner, width and height each clamped to [0, 1]
 *                        (nanodet's); skip=C: class C is no detection
 *
 * and poses:
 *
 *   people OUT T px=P    MoveNet multipose rows: 17 keypoints (y, x,
 *                        score) then the box (ymin, xmin, ymax, xmax,
 *                        score), y and x a share of the P pixel input;
 *                        the people whose score rounded to hundredths
 *                        is above T, matched as detectors' boxes are;
 *                        the figure is "people found/float people" and
 *                        the mean distance, in input pixels, of the
 *                        found people's keypoints whose float score is
 *                        above T
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

/* The outputs of one task on one image, float or int8: a row is the
 * values at one index of each output in turn (rows: the first output's
 * count over its last dimension; width[i]: output i's values a row, 0
 * when its count is not a multiple of rows) */
#define TASK_MAX_IN 8
#define TASK_MAX_ROW 256

typedef struct
{
  guint n;
  const task_output *o[TASK_MAX_IN];
  const float *v[TASK_MAX_IN];
  gint64 rows, width[TASK_MAX_IN];
} task_in;

/* row r into buf; its width, 0 when it does not fit */
static inline guint
task_row (const task_in * in, gint64 r, float *buf)
{
  guint i, w = 0;

  for (i = 0; i < in->n; i++) {
    if (in->width[i] == 0 || w + in->width[i] > TASK_MAX_ROW)
      return 0;
    memcpy (buf + w, in->v[i] + r * in->width[i],
        in->width[i] * sizeof (float));
    w += (guint) in->width[i];
  }
  return w;
}

/* KEY=VALUE among the arguments: VALUE, "" for a bare KEY, NULL */
static inline const gchar *
task_opt (gchar ** arg, const gchar * key)
{
  gsize n = strlen (key);

  for (; *arg; arg++)
    if (strncmp (*arg, key, n) == 0 && ((*arg)[n] == '=' || (*arg)[n] == 0))
      return *arg + n + ((*arg)[n] == '=');
  return NULL;
}

/* One detection: its corners (x0 <= x1, y0 <= y1), score, class (-1 when
 * the model has none) and the row or cell it comes from */
typedef struct
{
  double x0, y0, x1, y1, score;
  gint64 cls, row;
} task_det;

static inline void
task_det_add (GArray * dets, double xa, double ya, double xb, double yb,
    double score, gint64 cls, gint64 row)
{
  task_det d = { MIN (xa, xb), MIN (ya, yb), MAX (xa, xb), MAX (ya, yb),
    score, cls, row
  };

  g_array_append_val (dets, d);
}

static inline double
task_det_iou (const task_det * a, const task_det * b)
{
  double iw = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  double ih = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  double inter = iw > 0 && ih > 0 ? iw * ih : 0.0;
  double uni = (a->x1 - a->x0) * (a->y1 - a->y0)
      + (b->x1 - b->x0) * (b->y1 - b->y0) - inter;

  return uni > 0 ? inter / uni : 0.0;
}

/* best first; between equal scores, the first row */
static inline gint
task_det_order (gconstpointer pa, gconstpointer pb)
{
  const task_det *a = pa, *b = pb;

  if (a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

/* Sorts dets best first and keeps what greedy NMS keeps: a box whose IoU
 * with a kept one is above iou is dropped, at most max kept (0: all) */
static inline void
task_nms (GArray * dets, double iou, guint max)
{
  guint i, k, n = 0;

  g_array_sort (dets, task_det_order);
  for (i = 0; i < dets->len && (max == 0 || n < max); i++) {
    task_det d = g_array_index (dets, task_det, i);
    gboolean keep = TRUE;
    for (k = 0; k < n && keep; k++)
      keep = task_det_iou (&g_array_index (dets, task_det, k), &d) <= iou;
    if (keep)
      g_array_index (dets, task_det, n++) = d;
  }
  g_array_set_size (dets, n);
}

/* Each float detection, best first, takes the int8 detection of its
 * class not yet taken that overlaps it most, at IoU >= TASK_IOU: pair[i]
 * its index in q, or -1. The number found. */
static inline guint
task_match (const GArray * fl, const GArray * q, gint * pair)
{
  gboolean *taken = g_new0 (gboolean, q->len + 1);
  guint i, k, found = 0;

  for (i = 0; i < fl->len; i++) {
    const task_det *a = &g_array_index (fl, task_det, i);
    double best = 0.0;
    gint at = -1;
    for (k = 0; k < q->len; k++) {
      const task_det *b = &g_array_index (q, task_det, k);
      double v = task_det_iou (a, b);
      if (!taken[k] && b->cls == a->cls && v >= TASK_IOU && v > best) {
        best = v;
        at = (gint) k;
      }
    }
    if (at >= 0) {
      taken[at] = TRUE;
      found++;
    }
    if (pair)
      pair[i] = at;
  }
  g_free (taken);
  return found;
}

/* boxes: decoded rows, their values named by layout=, a score or
 * class scores */
static inline gboolean
task_decode_boxes (const task_in * in, gchar ** arg, double t, GArray * dets)
{
  static const gchar names[] = "xyXYs";
  const gchar *layout = task_opt (arg, "layout");
  float row[TASK_MAX_ROW];
  gint64 r;

  /* a score or class scores, not both */
  if (!layout || !strchr (layout, 's') == !strchr (layout, 'c'))
    return FALSE;
  for (r = 0; r < in->rows; r++) {
    double v[5] = { 0, 0, 0, 0, 0 };    /* x y X Y s */
    gint64 cls = -1, n_cls = 0;
    guint w = task_row (in, r, row), j;
    if (w < strlen (layout))
      return FALSE;
    for (j = 0; layout[j]; j++) {
      const gchar *at = strchr (names, layout[j]);
      if (layout[j] == 'c') {
        if (cls < 0 || row[j] > v[4]) {
          v[4] = row[j];
          cls = n_cls;
        }
        n_cls++;
      } else if (at && *at) {
        v[at - names] = row[j];
      }
    }
    if (v[4] > t)
      task_det_add (dets, v[0], v[1], v[2], v[3], v[4], cls, r);
  }
  return TRUE;
}

/* anchor: SSD rows (logit, centre offset, size) on generated anchors */
static inline gboolean
task_decode_anchor (const task_in * in, gchar ** arg, double t, GArray * dets)
{
  const gchar *grids = task_opt (arg, "grids"), *size =
      task_opt (arg, "size"), *scale = task_opt (arg, "scale");
  double s = size ? g_ascii_strtod (size, NULL) : 0;
  double grow = scale ? g_ascii_strtod (scale, NULL) : 1.0;
  gchar **g = grids ? g_strsplit (grids, ",", -1) : NULL;
  float row[TASK_MAX_ROW];
  gint64 r = 0;
  gboolean ok;
  guint i;

  for (i = 0; g && g[i]; i++) {
    gint64 n = 0, a = 0, k;
    if (sscanf (g[i], "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, &n, &a) != 2
        || n <= 0 || a <= 0)
      break;
    for (k = 0; k < n * n * a && r < in->rows; k++, r++) {
      double cx = (k / a % n + 0.5) / n * s, cy = (k / a / n + 0.5) / n * s;
      if (task_row (in, r, row) < 5)
        break;
      if (1.0 / (1.0 + exp (-row[0])) > t) {
        double w = grow * row[3], h = grow * row[4];
        cx += row[1];
        cy += row[2];
        task_det_add (dets, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2,
            1.0 / (1.0 + exp (-row[0])), -1, r);
      }
    }
  }
  /* the anchors must be the rows, one for one */
  ok = g && !g[i] && r == in->rows && s > 0 && grow > 0;
  g_strfreev (g);
  return ok;
}

/* grid: class scores and box distances on square grids */
static inline gboolean
task_decode_grid (const task_in * in, gchar ** arg, double t, GArray * dets)
{
  const gchar *scale = task_opt (arg, "scale"), *centre =
      task_opt (arg, "centre"), *top = task_opt (arg, "top"), *skip =
      task_opt (arg, "skip");
  double k = scale ? g_ascii_strtod (scale, NULL) : 0;
  double o = centre ? g_ascii_strtod (centre, NULL) : 0;
  gboolean peak = task_opt (arg, "peak") != NULL;
  gboolean clamp = task_opt (arg, "clamp") != NULL;
  gint64 no_class = skip ? g_ascii_strtoll (skip, NULL, 10) : -1;
  guint p;
  gint64 id = 0;

  if (k <= 0 || in->n % 2)
    return FALSE;
  for (p = 0; p < in->n; p += 2) {
    const task_output *ho = in->o[p];
    const float *heat = in->v[p], *dist = in->v[p + 1];
    gint64 c = ho->rank ? ho->dims[ho->rank - 1] : 1;
    gint64 cells = ho->count / c, g = (gint64) llround (sqrt (cells));
    gint64 bins = in->o[p + 1]->count / cells / 4, cell, j, e;
    if (g * g != cells || bins * 4 * cells != in->o[p + 1]->count)
      return FALSE;
    for (cell = 0; cell < cells; cell++) {
      gint64 col = cell % g, rw = cell / g;
      for (j = 0; j < c; j++, id++) {
        double v = heat[cell * c + j], d[4], x0, y0, x1, y1;
        gint64 dy, dx;
        gboolean is_peak = TRUE;
        if (!(v > t) || j == no_class)
          continue;
        for (dy = -1; peak && dy <= 1; dy++)
          for (dx = -1; dx <= 1; dx++)
            if (rw + dy >= 0 && rw + dy < g && col + dx >= 0 && col + dx < g
                && heat[((rw + dy) * g + col + dx) * c + j] > v)
              is_peak = FALSE;
        if (!is_peak)
          continue;
        for (e = 0; e < 4; e++)
          d[e] = k * (bins == 1 ? dist[cell * 4 + e] :
              (double) task_argmax (dist + (cell * 4 + e) * bins, bins, 1));
        x0 = (col + o - d[0]) / g;
        y0 = (rw + o - d[1]) / g;
        x1 = (col + o + d[2]) / g;
        y1 = (rw + o + d[3]) / g;
        if (clamp) {
          double w = CLAMP (x1 - x0, 0.0, 1.0), h = CLAMP (y1 - y0, 0.0, 1.0);
          x0 = CLAMP (x0, 0.0, 1.0);
          y0 = CLAMP (y0, 0.0, 1.0);
          x1 = x0 + w;
          y1 = y0 + h;
        }
        task_det_add (dets, x0, y0, x1, y1, v, j, id);
      }
    }
  }
  if (top) {
    g_array_sort (dets, task_det_order);
    g_array_set_size (dets, MIN (dets->len,
            (guint) g_ascii_strtoull (top, NULL, 10)));
  }
  return TRUE;
}

/* people: MoveNet multipose rows, the box at 51..54, the score at 55 */
static inline gboolean
task_decode_people (const task_in * in, double t, GArray * dets)
{
  float row[TASK_MAX_ROW];
  gint64 r;

  for (r = 0; r < in->rows; r++) {
    if (task_row (in, r, row) < 56)
      return FALSE;
    if (round (100 * row[55]) / 100 > t)
      task_det_add (dets, row[52], row[51], row[54], row[53], row[55], -1, r);
  }
  return TRUE;
}

/* the detections of one side, NMS done; FALSE when the task is wrong */
static inline gboolean
task_detect (const gchar * kind, gchar ** arg, const task_in * in,
    GArray * dets)
{
  double t = g_ascii_strtod (arg[0], NULL);
  gboolean ok;

  if (strcmp (kind, "people") == 0)
    return task_decode_people (in, t, dets);
  if (!arg[1] || !arg[2])
    return FALSE;
  if (strcmp (kind, "boxes") == 0)
    ok = task_decode_boxes (in, arg + 3, t, dets);
  else if (strcmp (kind, "anchor") == 0)
    ok = task_decode_anchor (in, arg + 3, t, dets);
  else
    ok = task_decode_grid (in, arg + 3, t, dets);
  if (ok)
    task_nms (dets, g_ascii_strtod (arg[1], NULL),
        (guint) g_ascii_strtoull (arg[2], NULL, 10));
  return ok;
}

/* One image of one task into f: fl and q its float and int8 outputs */
static inline gboolean
task_image (const gchar * kind, gchar ** arg, const task_in * fl,
    const task_in * q, task_figure * f)
{
  const task_output *o = fl->o[0];
  const float *a = fl->v[0], *b = q->v[0];
  gint64 inner = o->rank ? o->dims[o->rank - 1] : 1;
  gint64 k, n = o->count / inner;

  if (strcmp (kind, "class") == 0) {
    gboolean same = inner == 1 ? (a[0] > 0.5f) == (b[0] > 0.5f) :
        task_argmax (a, inner, 1) == task_argmax (b, inner, 1);
    f->matched += same;
    f->total++;
  } else if (strcmp (kind, "mask") == 0) {
    double t = g_ascii_strtod (arg[0], NULL);
    guint64 inter = 0, uni = 0;
    for (k = 0; k < n; k++) {
      gboolean x = inner == 2 ? a[2 * k + 1] > a[2 * k] : a[k] > t;
      gboolean y = inner == 2 ? b[2 * k + 1] > b[2 * k] : b[k] > t;
      inter += x && y;
      uni += x || y;
    }
    if (uni > 0) {
      f->sum += (double) inter / uni;
      f->n++;
    }
  } else if (strcmp (kind, "points") == 0) {
    gint64 s = g_ascii_strtoll (arg[0], NULL, 10);
    double px = g_ascii_strtod (arg[1], NULL);
    for (k = 0; s >= 2 && k + 1 < o->count; k += s) {
      f->sum += px * hypot (a[k] - b[k], a[k + 1] - b[k + 1]);
      f->n++;
    }
  } else if (strcmp (kind, "heat") == 0) {
    double px = g_ascii_strtod (arg[0], NULL);
    gint64 c, w = o->dims[2];
    if (o->rank != 4)
      return FALSE;
    for (c = 0; c < inner; c++) {
      gint64 x = task_argmax (a + c, n, inner), y = task_argmax (b + c, n,
          inner);
      f->sum += px * hypot ((double) (x % w - y % w), (double) (x / w - y / w));
      f->n++;
    }
  } else if (strcmp (kind, "ssd") == 0) {
    const task_output *o2 = fl->o[1];
    const float *a2 = fl->v[1], *b2 = q->v[1];
    gboolean logit = arg[0] && strcmp (arg[0], "logit") == 0;
    gint64 bs = o2->rank ? o2->dims[o2->rank - 1] : 1;
    double t = logit ? 0.0 : TASK_SCORE;
    for (k = 0; k < n && bs >= 4 && o2->count / bs == n; k++) {
      if (!(a[k * inner] >= t))
        continue;
      f->total++;
      f->matched += b[k * inner] >= t
          && task_iou (a2 + k * bs, b2 + k * bs) >= TASK_IOU;
    }
  } else {
    GArray *da = g_array_new (FALSE, FALSE, sizeof (task_det));
    GArray *db = g_array_new (FALSE, FALSE, sizeof (task_det));
    gboolean ok = task_detect (kind, arg, fl, da) && task_detect (kind, arg,
        q, db);
    gint *pair = g_new0 (gint, da->len + 1);
    const gchar *px = task_opt (arg, "px");
    float ra[TASK_MAX_ROW], rb[TASK_MAX_ROW];
    guint i;
    if (ok) {
      f->matched += task_match (da, db, pair);
      f->total += da->len;
    }
    /* people: the keypoints of each person found (y, x, score) */
    for (i = 0; ok && px && i < da->len; i++) {
      double t = g_ascii_strtod (arg[0], NULL), scale =
          g_ascii_strtod (px, NULL);
      if (pair[i] < 0)
        continue;
      task_row (fl, g_array_index (da, task_det, i).row, ra);
      task_row (q, g_array_index (db, task_det, pair[i]).row, rb);
      for (k = 0; k < 17; k++)
        if (ra[3 * k + 2] > t) {
          f->sum += scale * hypot (ra[3 * k] - rb[3 * k],
              ra[3 * k + 1] - rb[3 * k + 1]);
          f->n++;
        }
    }
    g_free (pair);
    g_array_unref (da);
    g_array_unref (db);
    return ok;
  }
  return TRUE;
}

/* Task LINE over the dump in DIR into f (added to what f holds); FALSE
 * when the line names no output of the dump, an unknown kind, too few
 * parameters or outputs that do not fit it */
static inline gboolean
task_measure (const gchar * dir, const task_dump * d, const gchar * line,
    task_figure * f)
{
  /* kind, outputs (fewest, most), parameters (fewest) */
  static const struct
  {
    const gchar *kind;
    guint min_out, max_out, min_args;
  } kinds[] = {
    {"class", 1, 1, 0}, {"mask", 1, 1, 1}, {"points", 1, 1, 2},
    {"heat", 1, 1, 1}, {"ssd", 2, 2, 0}, {"boxes", 1, TASK_MAX_IN, 3},
    {"anchor", 1, TASK_MAX_IN, 3}, {"grid", 2, TASK_MAX_IN, 3},
    {"people", 1, 1, 1},
  };
  gchar **w = g_strsplit (line, " ", -1);
  guint n = g_strv_length (w), i, k, kind, n_out = 0;
  int out[TASK_MAX_IN];
  gboolean ok;

  for (kind = 0; kind < G_N_ELEMENTS (kinds)
      && g_strcmp0 (w[0], kinds[kind].kind) != 0; kind++);
  ok = kind < G_N_ELEMENTS (kinds);
  while (ok && 1 + n_out < n && n_out < kinds[kind].max_out
      && (out[n_out] = task_find (d, w[1 + n_out])) >= 0)
    n_out++;
  ok = ok && n_out >= kinds[kind].min_out
      && n >= 1 + n_out + kinds[kind].min_args;
  for (i = 0; ok && i < d->n_images; i++) {
    task_in fl = { 0 }, q = { 0 };
    fl.n = q.n = n_out;
    for (k = 0; k < n_out; k++) {
      const task_output *o = &d->out[out[k]];
      fl.o[k] = q.o[k] = o;
      fl.v[k] = task_load (dir, i, out[k], "float", o->count);
      q.v[k] = task_load (dir, i, out[k], "int8", o->count);
      ok = ok && fl.v[k] && q.v[k];
      if (k == 0)
        fl.rows = o->count / (o->rank ? MAX (o->dims[o->rank - 1], 1) : 1);
      /* 0 when the output is not made of rows (a grid's other grids) */
      fl.width[k] = q.width[k] = fl.rows && o->count % fl.rows == 0 ?
          o->count / fl.rows : 0;
    }
    q.rows = fl.rows;
    ok = ok && task_image (w[0], w + 1 + n_out, &fl, &q, f);
    for (k = 0; k < n_out; k++) {
      g_free ((gpointer) fl.v[k]);
      g_free ((gpointer) q.v[k]);
    }
  }
  if (ok)
    f->kind = g_intern_string (w[0]);
  g_strfreev (w);
  return ok;
}

/* "top-1 19/20", "IoU 0.93", "2.1 px", "boxes 9/9", "people 5/6, 3.0 px" */
static inline gchar *
task_figure_text (const task_figure * f)
{
  if (f->kind == NULL)
    return g_strdup ("-");
  if (strcmp (f->kind, "class") == 0)
    return g_strdup_printf ("top-1 %u/%u", f->matched, f->total);
  if (strcmp (f->kind, "people") == 0)
    return f->n ? g_strdup_printf ("people %u/%u, %.1f px", f->matched,
        f->total, f->sum / f->n) : g_strdup_printf ("people %u/%u",
        f->matched, f->total);
  if (strcmp (f->kind, "ssd") == 0 || strcmp (f->kind, "boxes") == 0
      || strcmp (f->kind, "anchor") == 0 || strcmp (f->kind, "grid") == 0)
    return g_strdup_printf ("boxes %u/%u", f->matched, f->total);
  if (f->n == 0)
    return g_strdup ("-");
  if (strcmp (f->kind, "mask") == 0)
    return g_strdup_printf ("IoU %.3f", f->sum / f->n);
  return g_strdup_printf ("%.1f px", f->sum / f->n);
}

#endif /* __SIMNPU_TASK_AGREE_H__ */
