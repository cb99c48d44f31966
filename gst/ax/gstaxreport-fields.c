/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's fields as descriptors, built from the table
 * gstaxreport-fields.def, and what walks them: init, clear, copy, and the
 * JSON members of a struct written and read. The sections' frames (which
 * object a section is, when it is absent) are gstaxreport-json.c's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport-fields.h"

#include <math.h>
#include <string.h>

static gdouble group_ms_per_frame (const GstAxReport * report,
    gconstpointer object);

/* ---- the descriptors ---- */

#define OPTIONAL GST_AX_FIELD_FLAG_OPTIONAL
#define NULLABLE GST_AX_FIELD_FLAG_NULLABLE
#define NONNULL GST_AX_FIELD_FLAG_NONNULL

#define STRUCT(T, padding, doc) \
  static void T##_clear (gpointer p); \
  static void T##_free (gpointer p); \
  static const GstAxFieldDesc T##_fields[] = {
#define FIELD(T, type, name, key, section, flags, unit, doc) \
  { #name, GST_AX_FIELD_##type, G_STRUCT_OFFSET (T, name), key, \
    GST_AX_SECTION_##section, flags, NULL, unit, NULL, NULL },
#define FIELD_IF(T, type, name, key, section, flags, cond, unit, doc) \
  { #name, GST_AX_FIELD_##type, G_STRUCT_OFFSET (T, name), key, \
    GST_AX_SECTION_##section, flags, #cond, unit, NULL, NULL },
#define ARRAY(T, elem, name, key, section, flags, item, doc) \
  { #name, GST_AX_FIELD_ARRAY, G_STRUCT_OFFSET (T, name), key, \
    GST_AX_SECTION_##section, flags, NULL, "", &elem##_desc, NULL },
#define PTR_ARRAY(T, elem, name, key, section, flags, item, doc) \
  { #name, GST_AX_FIELD_PTR_ARRAY, G_STRUCT_OFFSET (T, name), key, \
    GST_AX_SECTION_##section, flags, NULL, "", &elem##_desc, NULL },
#define NESTED(T, sub, name, key, section, flags, doc) \
  { #name, GST_AX_FIELD_NESTED, G_STRUCT_OFFSET (T, name), key, \
    GST_AX_SECTION_##section, flags, NULL, "", &sub##_desc, NULL },
#define COMPUTED(T, name, key, section, func, unit, doc) \
  { #name, GST_AX_FIELD_COMPUTED, 0, key, GST_AX_SECTION_##section, 0, \
    NULL, unit, NULL, func },
#define OWNED(T, ctype, name, doc)
#define PRIVATE(T, ctype, name)
#define END(T) \
  }; \
  static const GstAxStructDesc T##_desc = { #T, sizeof (T), T##_fields, \
    G_N_ELEMENTS (T##_fields), T##_clear, T##_free }; \
  static void T##_clear (gpointer p) { gst_ax_fields_clear (&T##_desc, p); } \
  static void T##_free (gpointer p) { T##_clear (p); g_free (p); }

#include "gstaxreport-fields.def"

#undef STRUCT
#undef FIELD
#undef FIELD_IF
#undef ARRAY
#undef PTR_ARRAY
#undef NESTED
#undef COMPUTED
#undef OWNED
#undef PRIVATE
#undef END
#undef OPTIONAL
#undef NULLABLE
#undef NONNULL

const GstAxStructDesc *const gst_ax_report_desc = &GstAxReport_desc;
const GstAxStructDesc *const gst_ax_report_group_desc = &GstAxReportGroup_desc;
const GstAxStructDesc *const gst_ax_report_latency_desc =
    &GstAxReportLatency_desc;
const GstAxStructDesc *const gst_ax_report_device_occupancy_desc =
    &GstAxReportDeviceOccupancy_desc;
const GstAxStructDesc *const gst_ax_report_verdict_desc =
    &GstAxReportVerdict_desc;
const GstAxStructDesc *const gst_ax_report_row_desc = &GstAxReportRow_desc;

/* COMPUTED: the group's time per frame of the report */
static gdouble
group_ms_per_frame (const GstAxReport * report, gconstpointer object)
{
  const GstAxReportGroup *g = object;

  return report->frames > 0 ? g->total_ms / report->frames : NAN;
}

#define MEMBER(object, f, ctype) \
  (*(ctype *) ((guint8 *) (object) + (f)->offset))
#define CMEMBER(object, f, ctype) \
  (*(const ctype *) ((const guint8 *) (object) + (f)->offset))

const GstAxFieldDesc *
gst_ax_fields_find (const GstAxStructDesc * desc, const gchar * name)
{
  guint i;

  for (i = 0; i < desc->n_fields; i++)
    if (strcmp (desc->fields[i].name, name) == 0)
      return &desc->fields[i];
  g_assert_not_reached ();
  return NULL;
}

/* A number field as a double (the condition of a FIELD_IF). */
static gdouble
field_number (const GstAxFieldDesc * f, gconstpointer object)
{
  switch (f->type) {
    case GST_AX_FIELD_DOUBLE:
      return CMEMBER (object, f, gdouble);
    case GST_AX_FIELD_INT:
    case GST_AX_FIELD_RANK:
      return CMEMBER (object, f, gint);
    case GST_AX_FIELD_UINT:
    case GST_AX_FIELD_POSITIVE:
      return CMEMBER (object, f, guint);
    case GST_AX_FIELD_UINT64:
      return CMEMBER (object, f, guint64);
    case GST_AX_FIELD_BOOL:
    case GST_AX_FIELD_PASS:
      return CMEMBER (object, f, gboolean);
    default:
      g_assert_not_reached ();
      return 0;
  }
}

/* ---- init, clear, copy ---- */

void
gst_ax_fields_init (const GstAxStructDesc * desc, gpointer object)
{
  guint i;

  for (i = 0; i < desc->n_fields; i++) {
    const GstAxFieldDesc *f = &desc->fields[i];

    switch (f->type) {
      case GST_AX_FIELD_STRV:
        if (!(f->flags & GST_AX_FIELD_FLAG_NULLABLE))
          MEMBER (object, f, GPtrArray *) =
              g_ptr_array_new_with_free_func (g_free);
        break;
      case GST_AX_FIELD_ARRAY:
        MEMBER (object, f, GArray *) = g_array_new (FALSE, TRUE, f->elem->size);
        g_array_set_clear_func (MEMBER (object, f, GArray *), f->elem->clear);
        break;
      case GST_AX_FIELD_PTR_ARRAY:
        MEMBER (object, f, GPtrArray *) =
            g_ptr_array_new_with_free_func (f->elem->free);
        break;
      case GST_AX_FIELD_NESTED:
        gst_ax_fields_init (f->elem, (guint8 *) object + f->offset);
        break;
      case GST_AX_FIELD_RANK:
        MEMBER (object, f, gint) = GST_AX_REPORT_RANK_UNKNOWN;
        break;
      default:
        break;
    }
  }
}

void
gst_ax_fields_clear (const GstAxStructDesc * desc, gpointer object)
{
  guint i;

  for (i = 0; i < desc->n_fields; i++) {
    const GstAxFieldDesc *f = &desc->fields[i];

    switch (f->type) {
      case GST_AX_FIELD_STRING:
        g_clear_pointer (&MEMBER (object, f, gchar *), g_free);
        break;
      case GST_AX_FIELD_STRV:
      case GST_AX_FIELD_PTR_ARRAY:
        g_clear_pointer (&MEMBER (object, f, GPtrArray *), g_ptr_array_unref);
        break;
      case GST_AX_FIELD_ARRAY:
        g_clear_pointer (&MEMBER (object, f, GArray *), g_array_unref);
        break;
      case GST_AX_FIELD_NESTED:
        gst_ax_fields_clear (f->elem, (guint8 *) object + f->offset);
        break;
      default:
        break;
    }
  }
}

static GPtrArray *
copy_strv (const GPtrArray * src)
{
  GPtrArray *a = g_ptr_array_new_full (src->len, g_free);
  guint i;

  for (i = 0; i < src->len; i++)
    g_ptr_array_add (a, g_strdup (g_ptr_array_index (src, i)));
  return a;
}

/* @dest is zeroed storage; the private members are left to the caller */
void
gst_ax_fields_copy (const GstAxStructDesc * desc, gpointer dest,
    gconstpointer src)
{
  guint i, k;

  for (i = 0; i < desc->n_fields; i++) {
    const GstAxFieldDesc *f = &desc->fields[i];

    switch (f->type) {
      case GST_AX_FIELD_STRING:
        MEMBER (dest, f, gchar *) = g_strdup (CMEMBER (src, f, gchar *));
        break;
      case GST_AX_FIELD_DOUBLE:
        MEMBER (dest, f, gdouble) = CMEMBER (src, f, gdouble);
        break;
      case GST_AX_FIELD_UINT64:
        MEMBER (dest, f, guint64) = CMEMBER (src, f, guint64);
        break;
      case GST_AX_FIELD_INT:
      case GST_AX_FIELD_UINT:
      case GST_AX_FIELD_POSITIVE:
      case GST_AX_FIELD_BOOL:
      case GST_AX_FIELD_RANK:
      case GST_AX_FIELD_ROW_FLAGS:
      case GST_AX_FIELD_ROW_KIND:
      case GST_AX_FIELD_STATUS:
      case GST_AX_FIELD_CONSTRAINT:
      case GST_AX_FIELD_PASS:
        /* all of them int-sized */
        MEMBER (dest, f, gint) = CMEMBER (src, f, gint);
        break;
      case GST_AX_FIELD_STRV:
        if (CMEMBER (src, f, GPtrArray *))
          MEMBER (dest, f, GPtrArray *) =
              copy_strv (CMEMBER (src, f, GPtrArray *));
        break;
      case GST_AX_FIELD_ARRAY:{
        const GArray *from = CMEMBER (src, f, GArray *);
        GArray *to;

        to = g_array_new (FALSE, TRUE, f->elem->size);
        g_array_set_clear_func (to, f->elem->clear);
        MEMBER (dest, f, GArray *) = to;
        g_array_set_size (to, from->len);
        for (k = 0; k < from->len; k++)
          gst_ax_fields_copy (f->elem, to->data + k * f->elem->size,
              from->data + k * f->elem->size);
        break;
      }
      case GST_AX_FIELD_PTR_ARRAY:{
        const GPtrArray *from = CMEMBER (src, f, GPtrArray *);
        GPtrArray *to = g_ptr_array_new_with_free_func (f->elem->free);

        MEMBER (dest, f, GPtrArray *) = to;
        for (k = 0; k < from->len; k++) {
          gpointer e = g_malloc0 (f->elem->size);

          gst_ax_fields_copy (f->elem, e, g_ptr_array_index (from, k));
          g_ptr_array_add (to, e);
        }
        break;
      }
      case GST_AX_FIELD_NESTED:
        gst_ax_fields_copy (f->elem, (guint8 *) dest + f->offset,
            (const guint8 *) src + f->offset);
        break;
      case GST_AX_FIELD_COMPUTED:
        break;
    }
  }
}

/* ---- JSON writing ---- */

static void
json_double (JsonBuilder * b, const gchar * name, gdouble v)
{
  json_builder_set_member_name (b, name);
  if (isnan (v) || isinf (v))
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, v);
}

static void
json_int (JsonBuilder * b, const gchar * name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void
json_string (JsonBuilder * b, const gchar * name, const gchar * v)
{
  json_builder_set_member_name (b, name);
  if (v)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

/* SPECIAL (ROW_FLAGS): the flags as the names the Flag column prints */
static void
json_flags (JsonBuilder * b, const gchar * name, GstAxReportRowFlags flags)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  if (flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT)
    json_builder_add_string_value (b, "DEVICE WAIT");
  else if (flags & GST_AX_REPORT_ROW_FLAG_STAGE)
    json_builder_add_string_value (b, "STAGE");
  if (flags & GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)
    json_builder_add_string_value (b, "STRONGLY BLOCKED");
  else if (flags & GST_AX_REPORT_ROW_FLAG_BLOCKED)
    json_builder_add_string_value (b, "BLOCKED");
  if (flags & GST_AX_REPORT_ROW_FLAG_WORKERS)
    json_builder_add_string_value (b, "WORKERS");
  json_builder_end_array (b);
}

/* SPECIAL (ROW_KIND) */
static const gchar *const row_kind_names[] = {
  [GST_AX_REPORT_ROW_KIND_ELEMENT] = "element",
  [GST_AX_REPORT_ROW_KIND_TASK] = "task",
  [GST_AX_REPORT_ROW_KIND_REPORTED] = "reported",
};

static void
write_field (const GstAxFieldDesc * f, const GstAxStructDesc * desc,
    gconstpointer object, const GstAxReport * report, JsonBuilder * b)
{
  guint k;

  switch (f->type) {
    case GST_AX_FIELD_STRING:
      json_string (b, f->key, CMEMBER (object, f, gchar *));
      break;
    case GST_AX_FIELD_DOUBLE:{
      gdouble v = CMEMBER (object, f, gdouble);

      if (f->cond && !(field_number (gst_ax_fields_find (desc, f->cond),
                  object) > 0))
        v = NAN;
      json_double (b, f->key, v);
      break;
    }
    case GST_AX_FIELD_INT:
      json_int (b, f->key, CMEMBER (object, f, gint));
      break;
    case GST_AX_FIELD_UINT:
    case GST_AX_FIELD_POSITIVE:
      json_int (b, f->key, CMEMBER (object, f, guint));
      break;
    case GST_AX_FIELD_UINT64:
      json_int (b, f->key, (gint64) MIN (CMEMBER (object, f, guint64),
              G_MAXINT64));
      break;
    case GST_AX_FIELD_BOOL:
      json_builder_set_member_name (b, f->key);
      json_builder_add_boolean_value (b, CMEMBER (object, f, gboolean));
      break;
    case GST_AX_FIELD_STRV:{
      const GPtrArray *a = CMEMBER (object, f, GPtrArray *);

      json_builder_set_member_name (b, f->key);
      if (a == NULL) {
        json_builder_add_null_value (b);
        break;
      }
      json_builder_begin_array (b);
      for (k = 0; k < a->len; k++)
        json_builder_add_string_value (b, g_ptr_array_index (a, k));
      json_builder_end_array (b);
      break;
    }
    case GST_AX_FIELD_RANK:
      json_builder_set_member_name (b, f->key);
      if (CMEMBER (object, f, gint) == GST_AX_REPORT_RANK_UNKNOWN)
        json_builder_add_null_value (b);
      else
        json_builder_add_int_value (b, CMEMBER (object, f, gint));
      break;
    case GST_AX_FIELD_ROW_FLAGS:
      json_flags (b, f->key, CMEMBER (object, f, GstAxReportRowFlags));
      break;
    case GST_AX_FIELD_ROW_KIND:{
      GstAxReportRowKind kind = CMEMBER (object, f, GstAxReportRowKind);

      json_string (b, f->key, kind < G_N_ELEMENTS (row_kind_names) ?
          row_kind_names[kind] : "element");
      break;
    }
    case GST_AX_FIELD_STATUS:
      json_string (b, f->key, gst_ax_report_status_to_string (CMEMBER (object,
                  f, GstAxReportStatus)));
      break;
    case GST_AX_FIELD_CONSTRAINT:
      json_string (b, f->key,
          gst_ax_report_constraint_kind_to_string (CMEMBER (object, f,
                  GstAxReportConstraintKind)));
      break;
    case GST_AX_FIELD_PASS:
      json_string (b, f->key, CMEMBER (object, f, gboolean) ? "serial" :
          "streamed");
      break;
    case GST_AX_FIELD_ARRAY:{
      const GArray *a = CMEMBER (object, f, GArray *);

      json_builder_set_member_name (b, f->key);
      json_builder_begin_array (b);
      for (k = 0; k < a->len; k++) {
        json_builder_begin_object (b);
        gst_ax_fields_write (f->elem, a->data + k * f->elem->size,
            GST_AX_SECTION_ITEM, report, b);
        json_builder_end_object (b);
      }
      json_builder_end_array (b);
      break;
    }
    case GST_AX_FIELD_PTR_ARRAY:{
      const GPtrArray *a = CMEMBER (object, f, GPtrArray *);

      json_builder_set_member_name (b, f->key);
      json_builder_begin_array (b);
      for (k = 0; k < a->len; k++) {
        json_builder_begin_object (b);
        gst_ax_fields_write (f->elem, g_ptr_array_index (a, k),
            GST_AX_SECTION_ITEM, report, b);
        json_builder_end_object (b);
      }
      json_builder_end_array (b);
      break;
    }
    case GST_AX_FIELD_NESTED:
      json_builder_set_member_name (b, f->key);
      json_builder_begin_object (b);
      gst_ax_fields_write (f->elem, (const guint8 *) object + f->offset,
          GST_AX_SECTION_ITEM, report, b);
      json_builder_end_object (b);
      break;
    case GST_AX_FIELD_COMPUTED:
      json_double (b, f->key, f->compute (report, object));
      break;
  }
}

/* The members of @object's fields in @section, in the table's order. */
void
gst_ax_fields_write (const GstAxStructDesc * desc, gconstpointer object,
    GstAxFieldSection section, const GstAxReport * report, JsonBuilder * b)
{
  guint i;

  for (i = 0; i < desc->n_fields; i++)
    if (desc->fields[i].section == section && desc->fields[i].key)
      write_field (&desc->fields[i], desc, object, report, b);
}

/* The member of the field @name, whatever its section (a frame's
 * members). */
void
gst_ax_fields_write_one (const GstAxStructDesc * desc, gconstpointer object,
    const gchar * name, const GstAxReport * report, JsonBuilder * b)
{
  write_field (gst_ax_fields_find (desc, name), desc, object, report, b);
}

/* ---- GVariant ---- */

/* The fields of @object that have a JSON member, as entries of the
 * a{sv} @d under the same names: strings only when set (the enums as
 * their names, the flags as gst_ax_report_row_flags_to_string() prints
 * them), a RANK not known as -1. */
void
gst_ax_fields_to_vardict (const GstAxStructDesc * desc, gconstpointer object,
    GVariantBuilder * d)
{
  guint i;

  for (i = 0; i < desc->n_fields; i++) {
    const GstAxFieldDesc *f = &desc->fields[i];
    GVariant *v = NULL;

    if (f->key == NULL || f->section != GST_AX_SECTION_ITEM)
      continue;
    switch (f->type) {
      case GST_AX_FIELD_STRING:
        if (CMEMBER (object, f, gchar *))
          v = g_variant_new_string (CMEMBER (object, f, gchar *));
        break;
      case GST_AX_FIELD_DOUBLE:
        v = g_variant_new_double (CMEMBER (object, f, gdouble));
        break;
      case GST_AX_FIELD_INT:
        v = g_variant_new_int32 (CMEMBER (object, f, gint));
        break;
      case GST_AX_FIELD_UINT:
      case GST_AX_FIELD_POSITIVE:
        v = g_variant_new_uint32 (CMEMBER (object, f, guint));
        break;
      case GST_AX_FIELD_UINT64:
        v = g_variant_new_uint64 (CMEMBER (object, f, guint64));
        break;
      case GST_AX_FIELD_BOOL:
        v = g_variant_new_boolean (CMEMBER (object, f, gboolean));
        break;
      case GST_AX_FIELD_RANK:
        v = g_variant_new_int32 (CMEMBER (object, f, gint) ==
            GST_AX_REPORT_RANK_UNKNOWN ? -1 : CMEMBER (object, f, gint));
        break;
      case GST_AX_FIELD_ROW_FLAGS:
        v = g_variant_new_take_string (gst_ax_report_row_flags_to_string
            (CMEMBER (object, f, GstAxReportRowFlags)));
        break;
      case GST_AX_FIELD_ROW_KIND:{
        GstAxReportRowKind kind = CMEMBER (object, f, GstAxReportRowKind);

        v = g_variant_new_string (kind < G_N_ELEMENTS (row_kind_names) ?
            row_kind_names[kind] : "element");
        break;
      }
      case GST_AX_FIELD_STATUS:
        v = g_variant_new_string (gst_ax_report_status_to_string (CMEMBER
                (object, f, GstAxReportStatus)));
        break;
      case GST_AX_FIELD_CONSTRAINT:
        v = g_variant_new_string (gst_ax_report_constraint_kind_to_string
            (CMEMBER (object, f, GstAxReportConstraintKind)));
        break;
      case GST_AX_FIELD_PASS:
        v = g_variant_new_string (CMEMBER (object, f, gboolean) ? "serial" :
            "streamed");
        break;
      default:
        /* arrays, nested structs and computed numbers are not entries */
        break;
    }
    if (v)
      g_variant_builder_add (d, "{sv}", f->key, v);
  }
}

/* ---- JSON reading ---- */

void
gst_ax_fields_fail (GstAxFieldReader * rd, const gchar * where,
    const gchar * name, const gchar * format, ...)
{
  va_list args;
  gchar *what;

  if (rd->error)
    return;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  rd->error = g_error_new (GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
      "report JSON: %s%s%s: %s", where, *where && name ? "." : "",
      name ? name : "", what);
  g_free (what);
}

#define fail gst_ax_fields_fail

const gchar *
gst_ax_fields_node_kind (JsonNode * node)
{
  GType t;

  switch (JSON_NODE_TYPE (node)) {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
  }
  t = json_node_get_value_type (node);
  if (t == G_TYPE_INT64)
    return "an integer";
  if (t == G_TYPE_DOUBLE)
    return "a number";
  if (t == G_TYPE_BOOLEAN)
    return "a boolean";
  return "a string";
}

#define node_kind gst_ax_fields_node_kind

static gboolean
holds (JsonNode * node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == type;
}

/* A number; null reads NAN (the JSON writes what does not exist so). */
static gdouble
read_double (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name)
{
  if (JSON_NODE_HOLDS_NULL (node))
    return NAN;
  if (!holds (node, G_TYPE_DOUBLE) && !holds (node, G_TYPE_INT64)) {
    fail (rd, where, name, "expected a number, got %s", node_kind (node));
    return 0;
  }
  return json_node_get_double (node);
}

static gint64
read_int (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name, gint64 min, gint64 max)
{
  gint64 v;

  if (!holds (node, G_TYPE_INT64)) {
    fail (rd, where, name, "expected an integer, got %s", node_kind (node));
    return 0;
  }
  v = json_node_get_int (node);
  if (v < min || v > max) {
    fail (rd, where, name, "%" G_GINT64_FORMAT " is out of range (%"
        G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")", v, min, max);
    return 0;
  }
  return v;
}

/* A string or null (newly allocated, NULL for null). */
static gchar *
read_string (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name)
{
  if (JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (!holds (node, G_TYPE_STRING)) {
    fail (rd, where, name, "expected a string, got %s", node_kind (node));
    return NULL;
  }
  return g_strdup (json_node_get_string (node));
}

/* SPECIAL (ROW_FLAGS) */
static GstAxReportRowFlags
read_flags (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name)
{
  static const struct
  {
    const gchar *name;
    GstAxReportRowFlags flag;
  } names[] = {
    {"DEVICE WAIT", GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT},
    {"STAGE", GST_AX_REPORT_ROW_FLAG_STAGE},
    {"BLOCKED", GST_AX_REPORT_ROW_FLAG_BLOCKED},
    {"STRONGLY BLOCKED", GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED},
    {"WORKERS", GST_AX_REPORT_ROW_FLAG_WORKERS},
  };
  GstAxReportRowFlags flags = GST_AX_REPORT_ROW_FLAG_NONE;
  JsonArray *a;
  guint i, k;

  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, where, name, "expected an array of strings, got %s",
        node_kind (node));
    return flags;
  }
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    const gchar *s = holds (e, G_TYPE_STRING) ? json_node_get_string (e) : NULL;

    for (k = 0; s && k < G_N_ELEMENTS (names); k++)
      if (strcmp (s, names[k].name) == 0)
        break;
    if (s == NULL || k == G_N_ELEMENTS (names)) {
      fail (rd, where, name, "unknown flag %s%s%s (DEVICE WAIT, STAGE, "
          "BLOCKED, STRONGLY BLOCKED or WORKERS)", s ? "'" : "", s ? s :
          node_kind (e), s ? "'" : "");
      return flags;
    }
    flags |= names[k].flag;
  }
  return flags;
}

/* SPECIAL (STATUS, CONSTRAINT, ROW_KIND): an enum from its name */
static gint
read_enum (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name, const GstAxFieldDesc * f)
{
  gchar *s = read_string (rd, node, where, name);
  gint k, v = -1;

  switch (f->type) {
    case GST_AX_FIELD_STATUS:
      for (k = GST_AX_REPORT_STATUS_EOS; k <= GST_AX_REPORT_STATUS_INTERVAL;
          k++)
        if (g_strcmp0 (s, gst_ax_report_status_to_string (k)) == 0)
          v = k;
      if (v < 0)
        fail (rd, where, name, "unknown status '%s' (eos, cut-short, "
            "running, section, error or interval)", s ? s : "null");
      break;
    case GST_AX_FIELD_CONSTRAINT:
      for (k = GST_AX_REPORT_CONSTRAINT_UNDETERMINED;
          k <= GST_AX_REPORT_CONSTRAINT_DROPS; k++)
        if (g_strcmp0 (s, gst_ax_report_constraint_kind_to_string (k)) == 0)
          v = k;
      if (v < 0)
        fail (rd, where, name, "unknown kind '%s'", s ? s : "null");
      break;
    default:
      for (k = 0; k < (gint) G_N_ELEMENTS (row_kind_names); k++)
        if (g_strcmp0 (s, row_kind_names[k]) == 0)
          v = k;
      if (v < 0)
        fail (rd, where, name, "unknown kind '%s' (element, task or "
            "reported)", s ? s : "null");
      break;
  }
  g_free (s);
  return MAX (v, 0);
}

static void
read_strv (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const gchar * name, gboolean nullable, GPtrArray ** to)
{
  JsonArray *a;
  guint i;

  if (nullable && JSON_NODE_HOLDS_NULL (node))
    return;
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, where, name, "expected an array of strings%s, got %s",
        nullable ? " or null" : "", node_kind (node));
    return;
  }
  if (*to == NULL)
    *to = g_ptr_array_new_with_free_func (g_free);
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    JsonNode *e = json_array_get_element (a, i);

    if (!holds (e, G_TYPE_STRING)) {
      gchar *w = g_strdup_printf ("%s%s%s[%u]", where, *where ? "." : "",
          name, i);

      fail (rd, w, NULL, "expected a string, got %s", node_kind (e));
      g_free (w);
      return;
    }
    g_ptr_array_add (*to, g_strdup (json_node_get_string (e)));
  }
}

/* The objects of an array member, each read into a new element. */
static void
read_array (GstAxFieldReader * rd, JsonNode * node, const gchar * where,
    const GstAxFieldDesc * f, gpointer object)
{
  JsonArray *a;
  guint i;

  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, where, f->key, "expected an array, got %s", node_kind (node));
    return;
  }
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    JsonNode *e = json_array_get_element (a, i);
    gchar *w = g_strdup_printf ("%s%s%s[%u]", where, *where ? "." : "",
        f->key, i);
    gpointer elem;

    if (!JSON_NODE_HOLDS_OBJECT (e)) {
      fail (rd, w, NULL, "expected an object, got %s", node_kind (e));
      g_free (w);
      return;
    }
    if (f->type == GST_AX_FIELD_ARRAY) {
      GArray *to = MEMBER (object, f, GArray *);

      g_array_set_size (to, to->len + 1);
      elem = to->data + (to->len - 1) * f->elem->size;
    } else {
      elem = g_malloc0 (f->elem->size);
      g_ptr_array_add (MEMBER (object, f, GPtrArray *), elem);
    }
    gst_ax_fields_init (f->elem, elem);
    gst_ax_fields_read (rd, f->elem, elem, GST_AX_SECTION_ITEM,
        json_node_get_object (e), w);
    g_free (w);
  }
}

static void
read_field (GstAxFieldReader * rd, const GstAxFieldDesc * f,
    const GstAxStructDesc * desc, gpointer object, JsonObject * o,
    const gchar * where)
{
  JsonNode *node;

  if (rd->error || f->key == NULL || f->type == GST_AX_FIELD_COMPUTED)
    return;
  node = json_object_get_member (o, f->key);
  if (node == NULL) {
    if (!(f->flags & GST_AX_FIELD_FLAG_OPTIONAL))
      fail (rd, where, f->key, "missing");
    return;
  }
  switch (f->type) {
    case GST_AX_FIELD_STRING:
      g_free (MEMBER (object, f, gchar *));
      MEMBER (object, f, gchar *) = read_string (rd, node, where, f->key);
      if ((f->flags & GST_AX_FIELD_FLAG_NONNULL) &&
          MEMBER (object, f, gchar *) == NULL)
        fail (rd, where, f->key, "expected a string, got %s", node_kind (node));
      break;
    case GST_AX_FIELD_DOUBLE:{
      gdouble v = read_double (rd, node, where, f->key);

      if (f->cond) {
        const GstAxFieldDesc *c = gst_ax_fields_find (desc, f->cond);

        /* a condition the JSON does not carry: whether this is set */
        if (c->key == NULL && c->type == GST_AX_FIELD_BOOL)
          MEMBER (object, c, gboolean) = !isnan (v);
        if (isnan (v))
          v = 0;
      }
      MEMBER (object, f, gdouble) = v;
      break;
    }
    case GST_AX_FIELD_INT:
      MEMBER (object, f, gint) = read_int (rd, node, where, f->key, 0,
          G_MAXINT);
      break;
    case GST_AX_FIELD_UINT:
      MEMBER (object, f, guint) = read_int (rd, node, where, f->key, 0,
          G_MAXUINT);
      break;
    case GST_AX_FIELD_POSITIVE:
      MEMBER (object, f, guint) = read_int (rd, node, where, f->key, 1,
          G_MAXUINT);
      break;
    case GST_AX_FIELD_UINT64:
      MEMBER (object, f, guint64) = read_int (rd, node, where, f->key, 0,
          G_MAXINT64);
      break;
    case GST_AX_FIELD_BOOL:
      if (!holds (node, G_TYPE_BOOLEAN))
        fail (rd, where, f->key, "expected true or false, got %s",
            node_kind (node));
      else
        MEMBER (object, f, gboolean) = json_node_get_boolean (node);
      break;
    case GST_AX_FIELD_STRV:
      read_strv (rd, node, where, f->key,
          (f->flags & GST_AX_FIELD_FLAG_NULLABLE) != 0,
          &MEMBER (object, f, GPtrArray *));
      break;
    case GST_AX_FIELD_RANK:
      MEMBER (object, f, gint) = JSON_NODE_HOLDS_NULL (node) ?
          GST_AX_REPORT_RANK_UNKNOWN : read_int (rd, node, where, f->key, 0,
          GST_AX_REPORT_RANK_UNKNOWN - 1);
      break;
    case GST_AX_FIELD_ROW_FLAGS:
      MEMBER (object, f, GstAxReportRowFlags) = read_flags (rd, node, where,
          f->key);
      break;
    case GST_AX_FIELD_ROW_KIND:
    case GST_AX_FIELD_STATUS:
    case GST_AX_FIELD_CONSTRAINT:
      MEMBER (object, f, gint) = read_enum (rd, node, where, f->key, f);
      break;
    case GST_AX_FIELD_PASS:{
      gchar *s = read_string (rd, node, where, f->key);

      if (g_strcmp0 (s, "serial") == 0)
        MEMBER (object, f, gboolean) = TRUE;
      else if (g_strcmp0 (s, "streamed") == 0)
        MEMBER (object, f, gboolean) = FALSE;
      else
        fail (rd, where, f->key, "expected \"streamed\" or \"serial\"");
      g_free (s);
      break;
    }
    case GST_AX_FIELD_ARRAY:
    case GST_AX_FIELD_PTR_ARRAY:
      read_array (rd, node, where, f, object);
      break;
    case GST_AX_FIELD_NESTED:{
      gchar *w = g_strdup_printf ("%s%s%s", where, *where ? "." : "", f->key);

      if (!JSON_NODE_HOLDS_OBJECT (node))
        fail (rd, where, f->key, "expected an object, got %s",
            node_kind (node));
      else
        gst_ax_fields_read (rd, f->elem, (guint8 *) object + f->offset,
            GST_AX_SECTION_ITEM, json_node_get_object (node), w);
      g_free (w);
      break;
    }
    case GST_AX_FIELD_COMPUTED:
      break;
  }
}

/* The fields of @object in @section from the members of @o; @where is
 * the path of @o for the messages. */
void
gst_ax_fields_read (GstAxFieldReader * rd, const GstAxStructDesc * desc,
    gpointer object, GstAxFieldSection section, JsonObject * o,
    const gchar * where)
{
  guint i;

  for (i = 0; i < desc->n_fields && !rd->error; i++)
    if (desc->fields[i].section == section)
      read_field (rd, &desc->fields[i], desc, object, o, where);
}

void
gst_ax_fields_read_one (GstAxFieldReader * rd, const GstAxStructDesc * desc,
    gpointer object, const gchar * name, JsonObject * o, const gchar * where)
{
  read_field (rd, gst_ax_fields_find (desc, name), desc, object, o, where);
}
