/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The accuracy report: the int8 device graph run beside the float
 * executor on the calibration and validation sets, SQNR per device
 * tensor (over the foreground too when the options name one), the worst
 * layers, and the model's outputs as an application gets them (the
 * postamble in float on the int8 device results). */

#include "quantize-private.h"

#include <math.h>
#include <string.h>

#define N_WORST_LAYERS 5

/* ------------------------------------------------------------------ */
/* Accuracy: int8 device results against the float executor */

double
simnpu__quantize_sqnr_db (double sig, double noise)
{
  if (sig <= 0.0)
    return NAN;
  if (noise <= 0.0)
    return INFINITY;
  return 10.0 * log10 (sig / noise);
}

void
simnpu__quantize_evaluator_init (evaluator * e, const simnpu__graph * dg,
    const simnpu__ir_graph * g)
{
  GHashTable *names = simnpu__ir_tensor_names (g);
  unsigned i;

  e->arena = g_malloc0 (dg->arena_bytes + 64);
  e->scratch = g_malloc0 (dg->scratch_bytes + 64);
  e->ir_of_dev = g_new (int, dg->n_tensors);
  e->acc = g_new0 (sqnr_acc, dg->n_tensors);
  for (i = 0; i < dg->n_tensors; i++)
    e->ir_of_dev[i] = dg->tensors[i].kind == SIMNPU_TENSOR_CONSTANT
        || dg->tensors[i].name == NULL ? -1 :
        (int) GPOINTER_TO_UINT (g_hash_table_lookup (names,
            dg->tensors[i].name)) - 1;
  g_hash_table_unref (names);
}

void
simnpu__quantize_evaluator_clear (evaluator * e)
{
  g_free (e->arena);
  g_free (e->scratch);
  g_free (e->ir_of_dev);
  g_free (e->acc);
}

static float
sigmoidf (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

/* Foreground positions of the float run: position p (all axes but the
 * last) of a listed output holds an object when any of its values passes
 * the threshold. One mask per listed output. */
typedef struct
{
  int64_t n_pos;
  bool *mask;
} fg_mask;

static GArray *
foreground_masks (compile_ctx * c)
{
  const simnpu__compile_options *o = c->opts;
  GArray *masks = g_array_new (FALSE, FALSE, sizeof (fg_mask));
  char **name;

  for (name = o->fg_outputs; name && *name; name++) {
    int ti = simnpu__ir_find_tensor (c->g, *name);
    const simnpu__ir_tensor *t;
    int64_t count, inner, p, k;
    const float *v;
    fg_mask m;
    if (ti < 0)
      continue;
    t = &c->g->tensors[ti];
    count = simnpu__ir_tensor_elements (t);
    inner = t->rank ? t->dims[t->rank - 1] : 1;
    m.n_pos = count / inner;
    m.mask = g_new0 (bool, m.n_pos);
    v = simnpu__ir_exec_data (c->exec, ti);
    for (p = 0; p < m.n_pos; p++)
      for (k = 0; k < inner; k++) {
        float s = v[p * inner + k];
        if ((o->fg_logit ? sigmoidf (s) : s) > o->fg_threshold)
          m.mask[p] = true;
      }
    g_array_append_val (masks, m);
  }
  return masks;
}

static void
foreground_masks_free (GArray * masks)
{
  unsigned i;

  for (i = 0; i < masks->len; i++)
    g_free (g_array_index (masks, fg_mask, i).mask);
  g_array_free (masks, TRUE);
}

/* The int8 device graph on the float run's device inputs, quantised. */
static int
run_device (compile_ctx * c, const simnpu__graph * dg, evaluator * e,
    simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i;

  for (i = 0; i < dg->n_inputs; i++) {
    const simnpu__tensor *t = &dg->tensors[dg->inputs[i]];
    int it = e->ir_of_dev[dg->inputs[i]];
    const float *v = simnpu__ir_exec_data (c->exec, it);
    int8_t *q = (int8_t *) (e->arena + t->offset);
    int64_t k, count = simnpu__tensor_elements (t);
    /* the pixel input's real zero point may lie between two integers */
    float off = it == g->inputs[0] && c->pixel_input ? c->input_offset : 0.0f;
    for (k = 0; k < count; k++)
      q[k] = quantize_one (v[k] - off, t->scale, t->zero_point);
  }
  if (simnpu__graph_run (dg, e->arena, e->scratch) < 0)
    return simnpu__set_error (error, SIMNPU_EINTERNAL,
        "the int8 device graph failed to run");
  return 0;
}

static int
evaluate_one (compile_ctx * c, const simnpu__graph * dg, evaluator * e,
    const float *input, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i;
  int ret;
  GArray *masks;

  if ((ret = simnpu__quantize_run_float (c, input, error)) < 0
      || (ret = run_device (c, dg, e, error)) < 0)
    return ret;
  masks = foreground_masks (c);
  for (i = 0; i < dg->n_tensors; i++) {
    const simnpu__tensor *t = &dg->tensors[i];
    int it = e->ir_of_dev[i];
    const float *v;
    const int8_t *q;
    int64_t k, count, inner;
    sqnr_acc *a = &e->acc[i];
    const bool *fg = NULL;
    unsigned m;
    if (it < 0 || t->kind == SIMNPU_TENSOR_INPUT
        || g->tensors[it].dtype != SIMNPU_IR_F32)
      continue;
    v = simnpu__ir_exec_data (c->exec, it);
    q = (const int8_t *) (e->arena + t->offset);
    count = simnpu__tensor_elements (t);
    inner = t->n_dims ? t->dims[t->n_dims - 1] : 1;
    for (m = 0; m < masks->len && fg == NULL; m++)
      if (g_array_index (masks, fg_mask, m).n_pos == count / inner)
        fg = g_array_index (masks, fg_mask, m).mask;
    for (k = 0; k < count; k++) {
      double ref = CLAMP (v[k], c->clamp_lo[it], c->clamp_hi[it]);
      double got = (double) t->scale * (q[k] - t->zero_point);
      double d = got - ref;
      a->sig += ref * ref;
      a->noise += d * d;
      a->n++;
      if (fg != NULL && fg[k / inner]) {
        a->fg_sig += ref * ref;
        a->fg_noise += d * d;
        a->fg_n++;
      }
    }
  }
  foreground_masks_free (masks);
  return 0;
}

int
simnpu__quantize_evaluate (compile_ctx * c, const simnpu__graph * dg,
    GPtrArray * inputs, evaluator * e, simnpu_error * error)
{
  unsigned i;
  int ret = 0;

  memset (e->acc, 0, dg->n_tensors * sizeof (sqnr_acc));
  for (i = 0; i < inputs->len && ret == 0; i++)
    ret = evaluate_one (c, dg, e, inputs->pdata[i], error);
  return ret;
}

typedef struct
{
  unsigned dev;
  double db;
} layer_db;

static int
cmp_layer_db (gconstpointer a, gconstpointer b)
{
  const layer_db *x = a, *y = b;
  return (x->db > y->db) - (x->db < y->db);
}

void
simnpu__quantize_report_accuracy (compile_ctx * c, const simnpu__graph * dg,
    const evaluator * calib, const evaluator * valid, bool have_valid,
    simnpu__compile_result * r)
{
  const simnpu__ir_graph *g = c->g;
  GString *s = r->text;
  GArray *layers = g_array_new (FALSE, FALSE, sizeof (layer_db));
  unsigned i;

  g_string_append_printf (s, "\nAccuracy (SQNR of int8 against float, dB; "
      "higher is better)\n");
  g_string_append_printf (s, "  %-40s %12s %12s %12s %12s\n",
      "device output", "calibration", "validation", "fg calib", "fg valid");
  r->n_outputs = dg->n_outputs;
  r->outputs = g_new0 (simnpu__output_accuracy, dg->n_outputs);
  for (i = 0; i < dg->n_outputs; i++) {
    unsigned d = dg->outputs[i];
    const sqnr_acc *a = &calib->acc[d];
    const sqnr_acc *v = have_valid ? &valid->acc[d] : NULL;
    simnpu__output_accuracy *oa = &r->outputs[i];
    oa->name = g_strdup (dg->tensors[d].name);
    oa->sqnr_calib_db = simnpu__quantize_sqnr_db (a->sig, a->noise);
    oa->sqnr_valid_db = v ? simnpu__quantize_sqnr_db (v->sig, v->noise) : NAN;
    oa->fg_sqnr_calib_db =
        a->fg_n ? simnpu__quantize_sqnr_db (a->fg_sig, a->fg_noise) : NAN;
    oa->fg_sqnr_valid_db = v
        && v->fg_n ? simnpu__quantize_sqnr_db (v->fg_sig, v->fg_noise) : NAN;
    oa->fg_elements_valid = v ? v->fg_n : 0;
    g_string_append_printf (s, "  %-40s %12.1f %12.1f %12.1f %12.1f\n",
        oa->name, oa->sqnr_calib_db, oa->sqnr_valid_db, oa->fg_sqnr_calib_db,
        oa->fg_sqnr_valid_db);
  }
  for (i = 0; i < dg->n_tensors; i++) {
    const sqnr_acc *a = have_valid ? &valid->acc[i] : &calib->acc[i];
    layer_db l = { i, simnpu__quantize_sqnr_db (a->sig, a->noise) };
    if (calib->ir_of_dev[i] < 0 || dg->tensors[i].producer < 0 || isnan (l.db))
      continue;
    g_array_append_val (layers, l);
  }
  if (g_getenv ("SIMNPU_COMPILE_LAYERS"))
    for (i = 0; i < layers->len; i++) {
      const layer_db *l = &g_array_index (layers, layer_db, i);
      const sqnr_acc *a = have_valid ? &valid->acc[l->dev] :
          &calib->acc[l->dev];
      double rms = a->n ? sqrt (a->sig / a->n) : 0.0;
      double step = dg->tensors[l->dev].scale;
      g_string_append_printf (s, "    layer %-60s %8.1f  rms %.4g step %.4g "
          "rounding-only %.1f\n", dg->tensors[l->dev].name, l->db, rms, step,
          10.0 * log10 (rms * rms * 12.0 / (step * step)));
    }
  g_array_sort (layers, cmp_layer_db);
  g_string_append_printf (s, "  worst layers (%s):\n", have_valid ?
      "validation" : "calibration");
  for (i = 0; i < layers->len && i < N_WORST_LAYERS; i++) {
    const layer_db *l = &g_array_index (layers, layer_db, i);
    int it = calib->ir_of_dev[l->dev];
    int p = g->tensors[it].producer;
    g_string_append_printf (s, "    %-40s %8.1f  (%s)\n",
        dg->tensors[l->dev].name, l->db, p >= 0 ?
        simnpu__ir_op_name (g->nodes[p].op) : "input");
  }
  g_array_free (layers, TRUE);
}

/* The model's outputs as an application gets them: the postamble run in
 * float on the int8 device results, against the float model. acc has one
 * entry per postamble output. */
int
simnpu__quantize_evaluate_public (compile_ctx * c, const simnpu__graph * dg,
    GPtrArray * inputs, sqnr_acc * acc, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g, *post = dg->postamble;
  simnpu__ir_exec *px;
  evaluator e;
  unsigned i, j;
  int ret = 0;

  if ((px = simnpu__ir_exec_new (post, error)) == NULL)
    return error->code ? error->code : SIMNPU_ENOMEM;
  simnpu__quantize_evaluator_init (&e, dg, g);
  for (i = 0; i < inputs->len && ret == 0; i++) {
    GArray *masks;
    if ((ret = simnpu__quantize_run_float (c, inputs->pdata[i], error)) < 0
        || (ret = run_device (c, dg, &e, error)) < 0)
      break;
    for (j = 0; j < post->n_inputs; j++) {
      const char *name = post->tensors[post->inputs[j]].name;
      float *dst = simnpu__ir_exec_data (px, post->inputs[j]);
      unsigned d;
      for (d = 0; d < dg->n_tensors; d++)
        if (strcmp (dg->tensors[d].name, name) == 0) {
          const simnpu__tensor *t = &dg->tensors[d];
          const int8_t *q = (const int8_t *) (e.arena + t->offset);
          int64_t k, count = simnpu__tensor_elements (t);
          for (k = 0; k < count; k++)
            dst[k] = t->scale * (float) (q[k] - t->zero_point);
          break;
        }
    }
    if ((ret = simnpu__ir_exec_run (px, 0, post->n_nodes, error)) < 0)
      break;
    masks = foreground_masks (c);
    for (j = 0; j < post->n_outputs; j++) {
      const simnpu__ir_tensor *pt = &post->tensors[post->outputs[j]];
      int it = simnpu__ir_find_tensor (g, pt->name);
      float *got = simnpu__ir_exec_data (px, post->outputs[j]);
      const float *ref;
      const bool *fg = NULL;
      int64_t k, count, inner;
      unsigned m;
      if (it < 0 || pt->dtype != SIMNPU_IR_F32)
        continue;
      ref = simnpu__ir_exec_data (c->exec, it);
      count = simnpu__ir_tensor_elements (pt);
      if (dg->has_postamble_quant
          && dg->postamble_quant[j].dtype != SIMNPU_DTYPE_F32) {
        /* what the caller gets: the runtime's rounding (host.c) */
        float scale = dg->postamble_quant[j].scale, inv = 1.0f / scale;
        float zp = (float) dg->postamble_quant[j].zero_point;
        float lo = dg->postamble_quant[j].dtype == SIMNPU_DTYPE_U8 ? 0.0f :
            (float) I8_MIN;
        float hi = dg->postamble_quant[j].dtype == SIMNPU_DTYPE_U8 ?
            (float) G_MAXUINT8 : (float) I8_MAX;
        for (k = 0; k < count; k++) {
          float v = got[k] * inv + zp;
          v = isnan (v) ? zp : CLAMP (v, lo, hi);
          got[k] = scale * (rintf (v) - zp);
        }
      }
      inner = pt->rank ? pt->dims[pt->rank - 1] : 1;
      for (m = 0; m < masks->len && fg == NULL; m++)
        if (g_array_index (masks, fg_mask, m).n_pos == count / inner)
          fg = g_array_index (masks, fg_mask, m).mask;
      for (k = 0; k < count; k++) {
        double dv = (double) got[k] - ref[k];
        acc[j].sig += (double) ref[k] * ref[k];
        acc[j].noise += dv * dv;
        acc[j].n++;
        if (fg != NULL && fg[k / inner]) {
          acc[j].fg_sig += (double) ref[k] * ref[k];
          acc[j].fg_noise += dv * dv;
          acc[j].fg_n++;
        }
      }
    }
    foreground_masks_free (masks);
  }
  simnpu__quantize_evaluator_clear (&e);
  simnpu__ir_exec_free (px);
  return ret;
}

void
simnpu__quantize_report_public (const simnpu__graph * dg, const sqnr_acc * cal,
    const sqnr_acc * val, GString * s)
{
  const simnpu__ir_graph *post = dg->postamble;
  unsigned j;

  g_string_append_printf (s, "  model outputs (the postamble in float on "
      "the int8 device results%s):\n", dg->has_postamble_quant ?
      ", then quantised" : "");
  for (j = 0; j < post->n_outputs; j++)
    g_string_append_printf (s, "  %-40s %12.1f %12.1f %12.1f %12.1f\n",
        post->tensors[post->outputs[j]].name,
        simnpu__quantize_sqnr_db (cal[j].sig, cal[j].noise),
        val ? simnpu__quantize_sqnr_db (val[j].sig, val[j].noise) : NAN,
        cal[j].fg_n ? simnpu__quantize_sqnr_db (cal[j].fg_sig,
            cal[j].fg_noise) : NAN, val
        && val[j].fg_n ? simnpu__quantize_sqnr_db (val[j].fg_sig,
            val[j].fg_noise) : NAN);
}

static int
dump_floats (const char *dir, unsigned image, unsigned output,
    const char *kind, const float *v, int64_t count, simnpu_error * error)
{
  gchar *file = g_strdup_printf ("%s/%u-%u.%s.f32", dir, image, output, kind);
  GError *gerr = NULL;
  int ret = 0;

  if (!g_file_set_contents (file, (const char *) v,
          (gssize) (count * (int64_t) sizeof (float)), &gerr)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s", gerr->message);
    g_error_free (gerr);
  }
  g_free (file);
  return ret;
}

int
simnpu__quantize_dump_outputs (compile_ctx * c, const simnpu__graph * dg,
    GPtrArray * inputs, const char *dir, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g, *post = dg->postamble;
  simnpu__ir_exec *px = NULL;
  GString *list = g_string_new (NULL);
  GError *gerr = NULL;
  gchar *file;
  evaluator e;
  unsigned i, j, d;
  int ret = 0;

  if (post && (px = simnpu__ir_exec_new (post, error)) == NULL) {
    g_string_free (list, TRUE);
    return error->code ? error->code : SIMNPU_ENOMEM;
  }
  simnpu__quantize_evaluator_init (&e, dg, g);
  for (i = 0; i < inputs->len && ret == 0; i++) {
    if ((ret = simnpu__quantize_run_float (c, inputs->pdata[i], error)) < 0
        || (ret = run_device (c, dg, &e, error)) < 0)
      break;
    for (j = 0; post && j < post->n_inputs; j++) {
      float *dst = simnpu__ir_exec_data (px, post->inputs[j]);
      for (d = 0; d < dg->n_tensors; d++)
        if (strcmp (dg->tensors[d].name,
                post->tensors[post->inputs[j]].name) == 0) {
          const simnpu__tensor *t = &dg->tensors[d];
          const int8_t *q = (const int8_t *) (e.arena + t->offset);
          int64_t k, count = simnpu__tensor_elements (t);
          for (k = 0; k < count; k++)
            dst[k] = t->scale * (float) (q[k] - t->zero_point);
          break;
        }
    }
    if (post && (ret = simnpu__ir_exec_run (px, 0, post->n_nodes, error)) < 0)
      break;
    for (j = 0; j < g->n_outputs && ret == 0; j++) {
      const simnpu__ir_tensor *ot = &g->tensors[g->outputs[j]];
      int64_t k, count = simnpu__ir_tensor_elements (ot);
      float *got = NULL;
      int pt;
      if (ot->dtype != SIMNPU_IR_F32)
        continue;
      if (post && (pt = simnpu__ir_find_tensor (post, ot->name)) >= 0)
        got = g_memdup2 (simnpu__ir_exec_data (px, pt), count * sizeof (float));
      for (d = 0; got == NULL && d < dg->n_tensors; d++)
        if (dg->tensors[d].kind == SIMNPU_TENSOR_OUTPUT
            && strcmp (dg->tensors[d].name, ot->name) == 0) {
          const simnpu__tensor *t = &dg->tensors[d];
          const int8_t *q = (const int8_t *) (e.arena + t->offset);
          got = g_new (float, count);
          for (k = 0; k < count; k++)
            got[k] = t->scale * (float) (q[k] - t->zero_point);
        }
      if (got == NULL)
        continue;
      ret = dump_floats (dir, i, j, "float",
          simnpu__ir_exec_data (c->exec, g->outputs[j]), count, error);
      if (ret == 0)
        ret = dump_floats (dir, i, j, "int8", got, count, error);
      g_free (got);
      if (i == 0) {
        unsigned r;
        g_string_append_printf (list, "%u %s", j, ot->name);
        for (r = 0; r < ot->rank; r++)
          g_string_append_printf (list, " %" G_GINT64_FORMAT, ot->dims[r]);
        g_string_append_c (list, '\n');
      }
    }
  }
  if (ret == 0) {
    file = g_strdup_printf ("%s/outputs.txt", dir);
    g_string_append_printf (list, "images %u\n", inputs->len);
    if (!g_file_set_contents (file, list->str, (gssize) list->len, &gerr)) {
      ret = simnpu__set_error (error, SIMNPU_EIO, "%s", gerr->message);
      g_error_free (gerr);
    }
    g_free (file);
  }
  simnpu__quantize_evaluator_clear (&e);
  simnpu__ir_exec_free (px);
  g_string_free (list, TRUE);
  return ret;
}
