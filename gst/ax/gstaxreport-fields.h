/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Private: the report's field table (gstaxreport-fields.def) as
 * descriptors, and the free, copy, JSON writing and reading that walk
 * them. Not installed. */

#ifndef __GST_AX_REPORT_FIELDS_H__
#define __GST_AX_REPORT_FIELDS_H__

#include "gstaxreport.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS
/* the storage and JSON conversion of a field (the type column) */
    typedef enum
{
  GST_AX_FIELD_STRING,
  GST_AX_FIELD_DOUBLE,
  GST_AX_FIELD_INT,
  GST_AX_FIELD_UINT,
  GST_AX_FIELD_POSITIVE,
  GST_AX_FIELD_UINT64,
  GST_AX_FIELD_BOOL,
  GST_AX_FIELD_STRV,
  GST_AX_FIELD_RANK,
  GST_AX_FIELD_ROW_FLAGS,
  GST_AX_FIELD_ROW_KIND,
  GST_AX_FIELD_STATUS,
  GST_AX_FIELD_CONSTRAINT,
  GST_AX_FIELD_PASS,
  GST_AX_FIELD_ARRAY,
  GST_AX_FIELD_PTR_ARRAY,
  GST_AX_FIELD_NESTED,
  GST_AX_FIELD_COMPUTED,
} GstAxFieldType;

/* where a field's JSON member goes (the section column): ITEM in the
 * sub-structs' own objects, the others in GstAxReport's sections */
typedef enum
{
  GST_AX_SECTION_NONE,
  GST_AX_SECTION_ITEM,
  GST_AX_SECTION_HEAD,
  GST_AX_SECTION_INTERVAL,
  GST_AX_SECTION_ERROR,
  GST_AX_SECTION_TRUST,
  GST_AX_SECTION_LATENCY,
  GST_AX_SECTION_GROUPS,
  GST_AX_SECTION_SHARE,
  GST_AX_SECTION_THROUGHPUT,
  GST_AX_SECTION_CPU,
  GST_AX_SECTION_STREAMS,
  GST_AX_SECTION_QUEUES,
  GST_AX_SECTION_QOS,
  GST_AX_SECTION_DEVICES,
  GST_AX_SECTION_OCCUPANCY,
  GST_AX_SECTION_PROFILER,
  GST_AX_SECTION_TAIL,
  GST_AX_SECTION_VERDICT,
} GstAxFieldSection;

typedef enum
{
  GST_AX_FIELD_FLAG_OPTIONAL = (1 << 0),
  GST_AX_FIELD_FLAG_NULLABLE = (1 << 1),
  GST_AX_FIELD_FLAG_NONNULL = (1 << 2),
} GstAxFieldFlags;

typedef struct _GstAxStructDesc GstAxStructDesc;

/* a number the JSON carries and the struct does not store */
typedef gdouble (*GstAxFieldCompute) (const GstAxReport * report,
    gconstpointer object);

typedef struct
{
  const gchar *name;
  GstAxFieldType type;
  gsize offset;
  const gchar *key;
  GstAxFieldSection section;
  guint flags;
  /* FIELD_IF: the field whose 0 writes this one null */
  const gchar *cond;
  const gchar *unit;
  /* ARRAY, PTR_ARRAY, NESTED */
  const GstAxStructDesc *elem;
  GstAxFieldCompute compute;
} GstAxFieldDesc;

struct _GstAxStructDesc
{
  const gchar *name;
  gsize size;
  const GstAxFieldDesc *fields;
  guint n_fields;
  /* clears one element of a GArray of this struct */
  GDestroyNotify clear;
  /* clears and frees one element of a GPtrArray of this struct */
  GDestroyNotify free;
};

G_GNUC_INTERNAL extern const GstAxStructDesc *const gst_ax_report_desc;
G_GNUC_INTERNAL extern const GstAxStructDesc *const gst_ax_report_group_desc;
G_GNUC_INTERNAL extern const GstAxStructDesc *const gst_ax_report_latency_desc;
G_GNUC_INTERNAL extern const GstAxStructDesc *const
    gst_ax_report_device_occupancy_desc;
G_GNUC_INTERNAL extern const GstAxStructDesc *const
    gst_ax_report_verdict_desc;
G_GNUC_INTERNAL extern const GstAxStructDesc *const gst_ax_report_row_desc;

G_GNUC_INTERNAL void gst_ax_fields_init (const GstAxStructDesc * desc,
    gpointer object);
G_GNUC_INTERNAL void gst_ax_fields_clear (const GstAxStructDesc * desc,
    gpointer object);
G_GNUC_INTERNAL void gst_ax_fields_copy (const GstAxStructDesc * desc,
    gpointer dest, gconstpointer src);
G_GNUC_INTERNAL const GstAxFieldDesc *gst_ax_fields_find (const
    GstAxStructDesc * desc, const gchar * name);

G_GNUC_INTERNAL void gst_ax_fields_write (const GstAxStructDesc * desc,
    gconstpointer object, GstAxFieldSection section,
    const GstAxReport * report, JsonBuilder * b);
G_GNUC_INTERNAL void gst_ax_fields_write_one (const GstAxStructDesc * desc,
    gconstpointer object, const gchar * name, const GstAxReport * report,
    JsonBuilder * b);

G_GNUC_INTERNAL void gst_ax_fields_to_vardict (const GstAxStructDesc * desc,
    gconstpointer object, GVariantBuilder * d);

/* The reader's state: the first error, with the path of the member */
typedef struct
{
  GError *error;
} GstAxFieldReader;

G_GNUC_INTERNAL void gst_ax_fields_read (GstAxFieldReader * rd,
    const GstAxStructDesc * desc, gpointer object, GstAxFieldSection section,
    JsonObject * o, const gchar * where);
G_GNUC_INTERNAL void gst_ax_fields_read_one (GstAxFieldReader * rd,
    const GstAxStructDesc * desc, gpointer object, const gchar * name,
    JsonObject * o, const gchar * where);
G_GNUC_INTERNAL void gst_ax_fields_fail (GstAxFieldReader * rd,
    const gchar * where, const gchar * name, const gchar * format, ...)
    G_GNUC_PRINTF (4, 5);
G_GNUC_INTERNAL const gchar *gst_ax_fields_node_kind (JsonNode * node);

G_END_DECLS
#endif /* __GST_AX_REPORT_FIELDS_H__ */
