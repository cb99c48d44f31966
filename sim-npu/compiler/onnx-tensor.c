/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* ONNX data types and TensorProto (initializers, Constant values and the
 * .pb files of ONNX's backend tests) into IR dtypes and host data: typed
 * or raw storage, float16 and double narrowed to float. */

#include "onnx-private.h"

#define ONNX_FLOAT16_EXP_BITS 0x1f
#define ONNX_FLOAT16_MANT_BITS 0x3ff
#define ONNX_FLOAT16_MANT_SHIFT 10
#define ONNX_FLOAT16_EXP_SHIFT 10
#define ONNX_FLOAT16_SIGN_SHIFT 15
#define ONNX_FLOAT16_BIAS 15
#define ONNX_FLOAT32_BIAS 127
#define ONNX_FLOAT32_MANT_SHIFT 13
#define ONNX_FLOAT32_EXP_SHIFT 23
#define ONNX_FLOAT32_SIGN_SHIFT 31
#define ONNX_FLOAT32_EXP_BITS 0xff

bool
simnpu__onnx_dtype_to_ir (int32_t onnx, simnpu__ir_dtype * out)
{
  switch (onnx) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
      *out = SIMNPU_IR_F32;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      *out = SIMNPU_IR_I64;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
      *out = SIMNPU_IR_I32;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
      *out = SIMNPU_IR_U8;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
      *out = SIMNPU_IR_I8;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
      *out = SIMNPU_IR_BOOL;
      return true;
    default:
      return false;
  }
}

const char *
simnpu__onnx_dtype_name (int32_t onnx)
{
  const ProtobufCEnumValue *v =
      protobuf_c_enum_descriptor_get_value
      (&onnx__tensor_proto__data_type__descriptor, onnx);
  return v != NULL ? v->name : "unknown";
}

static float
onnx_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h >> ONNX_FLOAT16_SIGN_SHIFT) <<
      ONNX_FLOAT32_SIGN_SHIFT;
  uint32_t exp = (h >> ONNX_FLOAT16_EXP_SHIFT) & ONNX_FLOAT16_EXP_BITS;
  uint32_t mant = h & ONNX_FLOAT16_MANT_BITS;
  uint32_t bits;
  float f;

  if (exp == 0) {
    /* zero or subnormal: exact in float */
    f = ldexpf ((float) mant, 1 - ONNX_FLOAT16_BIAS - ONNX_FLOAT16_MANT_SHIFT);
    return sign ? -f : f;
  }
  if (exp == ONNX_FLOAT16_EXP_BITS)
    bits = sign | ((uint32_t) ONNX_FLOAT32_EXP_BITS << ONNX_FLOAT32_EXP_SHIFT)
        | (mant << ONNX_FLOAT32_MANT_SHIFT);
  else
    bits = sign | ((exp - ONNX_FLOAT16_BIAS + ONNX_FLOAT32_BIAS) <<
        ONNX_FLOAT32_EXP_SHIFT) | (mant << ONNX_FLOAT32_MANT_SHIFT);
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* size of one element as stored in raw_data */
static size_t
onnx_raw_size (int32_t onnx)
{
  switch (onnx) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
      return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
      return 2;
    default:
      return 1;
  }
}

int
simnpu__onnx_tensor_from_proto (const Onnx__TensorProto * t, const char *what,
    simnpu__ir_dtype * dtype_out, unsigned *rank_out, int64_t * dims_out,
    void **data_out, simnpu_error * error)
{
  simnpu__ir_dtype dtype;
  int64_t n = 1;
  size_t i, esize, n_typed;
  uint8_t *data;
  int32_t dt = t->has_data_type ? t->data_type : 0;

  if (!simnpu__onnx_dtype_to_ir (dt, &dtype))
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: data type %s (%d) is not supported (expected float, double, "
        "float16, int64, int32, uint8, int8 or bool)", what,
        simnpu__onnx_dtype_name (dt), (int) dt);
  /* never read: a location is a path that a hostile model could point
   * anywhere, and the model's own folder is not known here */
  if ((t->has_data_location
          && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
      || t->n_external_data > 0) {
    const char *location = NULL;
    for (i = 0; i < t->n_external_data; i++)
      if (t->external_data[i]->key != NULL && t->external_data[i]->value
          != NULL && strcmp (t->external_data[i]->key, "location") == 0)
        location = t->external_data[i]->value;
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: external data%s%s%s is not supported: weights are never read "
        "from other files (save the model with its weights inside)", what,
        location ? " ('" : "", location ? location : "", location ? "')" : "");
  }
  if (t->segment != NULL)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: segmented tensors are not supported", what);
  if (t->n_dims > SIMNPU_IR_MAX_RANK)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: rank %zu is above the maximum %d", what, t->n_dims,
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0 || t->dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "%s: dimension %zu is %" G_GINT64_FORMAT
          " (expected 0 to %" G_GINT64_FORMAT ")", what, i, t->dims[i],
          (gint64) SIMNPU_IR_MAX_ELEMENTS);
    n *= t->dims[i];
    if (n > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__set_error (error, SIMNPU_ENOMEM,
          "%s: more than %" G_GINT64_FORMAT " elements", what,
          (gint64) SIMNPU_IR_MAX_ELEMENTS);
    dims_out[i] = t->dims[i];
  }
  esize = simnpu__ir_dtype_size (dtype);

  switch (dt) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
      n_typed = t->n_float_data;
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
      n_typed = t->n_double_data;
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      n_typed = t->n_int64_data;
      break;
    default:
      n_typed = t->n_int32_data;
      break;
  }
  if (t->has_raw_data && t->raw_data.len > 0) {
    if (t->raw_data.len != (size_t) n * onnx_raw_size (dt))
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "%s: raw_data has %zu bytes, expected %" G_GINT64_FORMAT
          " (%" G_GINT64_FORMAT " elements of %s)", what, t->raw_data.len,
          (gint64) (n * onnx_raw_size (dt)), (gint64) n,
          simnpu__onnx_dtype_name (dt));
  } else if (n_typed != (size_t) n) {
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "%s: has %zu values, expected %" G_GINT64_FORMAT " (the product of "
        "its dims)", what, n_typed, (gint64) n);
  }

  data = g_malloc0 (MAX (1, (size_t) n * esize));
  for (i = 0; i < (size_t) n; i++) {
    if (t->has_raw_data && t->raw_data.len > 0) {
      const uint8_t *src = t->raw_data.data + i * onnx_raw_size (dt);
      if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
        double d;
        float f;
        memcpy (&d, src, sizeof d);
        f = (float) d;
        memcpy (data + i * esize, &f, esize);
      } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {
        uint16_t h;
        float f;
        memcpy (&h, src, sizeof h);
        f = onnx_half_to_float (h);
        memcpy (data + i * esize, &f, esize);
      } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
        data[i] = src[0] != 0;
      } else {
        memcpy (data + i * esize, src, esize);
      }
      continue;
    }
    switch (dt) {
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        ((float *) data)[i] = t->float_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        ((float *) data)[i] = (float) t->double_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
        ((float *) data)[i] = onnx_half_to_float ((uint16_t)
            t->int32_data[i]);
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        ((int64_t *) data)[i] = t->int64_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        ((int32_t *) data)[i] = t->int32_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
        data[i] = (uint8_t) t->int32_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
        ((int8_t *) data)[i] = (int8_t) t->int32_data[i];
        break;
      default:
        data[i] = t->int32_data[i] != 0;
        break;
    }
  }
  *dtype_out = dtype;
  *rank_out = t->n_dims;
  *data_out = data;
  return 0;
}

int
simnpu__onnx_read_tensor (const void *data, size_t size, char **name_out,
    simnpu__ir_dtype * dtype_out, unsigned *rank_out, int64_t * dims_out,
    void **data_out, simnpu_error * error)
{
  Onnx__TensorProto *t;
  int ret;

  t = onnx__tensor_proto__unpack (NULL, size, data);
  if (t == NULL)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "not a valid ONNX TensorProto (%zu bytes; protobuf parse failed)",
        size);
  ret = simnpu__onnx_tensor_from_proto (t, t->name && t->name[0] ? t->name :
      "tensor", dtype_out, rank_out, dims_out, data_out, error);
  if (ret == 0 && name_out != NULL)
    *name_out = g_strdup (t->name ? t->name : "");
  onnx__tensor_proto__free_unpacked (t, NULL);
  return ret;
}

bool
simnpu__onnx_dtype_from_attr (int64_t to, simnpu__ir_dtype * d)
{
  /* doubles are computed in float, as the importer reads them */
  return to == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT64
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT32
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT8
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ?
      simnpu__onnx_dtype_to_ir ((int32_t) to, d) : false;
}
