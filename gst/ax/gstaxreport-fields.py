#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.
"""Writes gstaxreport-structs.h, the report's public structs with their
gtk-doc and the declarations of the arrays' accessors, and
gstaxreport-accessors.c, those accessors, from the field table
gstaxreport-fields.def (the same rows the C code includes for the JSON
writer and reader, free and copy).

usage: gstaxreport-fields.py FIELDS.def OUTPUT.h OUTPUT.c
"""

import re
import sys

CTYPES = {
    'STRING': 'gchar *',
    'DOUBLE': 'gdouble ',
    'INT': 'gint ',
    'UINT': 'guint ',
    'POSITIVE': 'guint ',
    'UINT64': 'guint64 ',
    'BOOL': 'gboolean ',
    'STRV': 'GPtrArray *',
    'RANK': 'gint ',
    'ROW_FLAGS': 'GstAxReportRowFlags ',
    'ROW_KIND': 'GstAxReportRowKind ',
    'STATUS': 'GstAxReportStatus ',
    'CONSTRAINT': 'GstAxReportConstraintKind ',
    'PASS': 'gboolean ',
}
NUMBERS = {'DOUBLE', 'INT', 'UINT', 'POSITIVE', 'UINT64', 'RANK'}
MACROS = ('STRUCT', 'FIELD_IF', 'FIELD', 'PTR_ARRAY', 'ARRAY', 'NESTED',
          'COMPUTED', 'OWNED', 'PRIVATE', 'END')


def fail(msg):
    sys.exit('gstaxreport-fields.py: ' + msg)


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def split_args(text, pos):
    """The arguments of the call whose '(' is at text[pos], and the index
    after its ')'. Adjacent string literals are joined, as C joins them."""
    args, cur, depth, i = [], [], 0, pos
    while True:
        c = text[i]
        if c == '"':
            m = re.compile(r'"((?:[^"\\]|\\.)*)"').match(text, i)
            cur.append(('str', m.group(1)))
            i = m.end()
            continue
        if c == '(':
            depth += 1
            if depth > 1:
                cur.append(('tok', c))
        elif c == ')':
            depth -= 1
            if depth == 0:
                args.append(cur)
                return [join(a) for a in args], i + 1
            cur.append(('tok', c))
        elif c == ',' and depth == 1:
            args.append(cur)
            cur = []
        elif not c.isspace():
            cur.append(('tok', c))
        i += 1


def join(parts):
    if parts and all(k == 'str' for k, _ in parts):
        s = ''.join(v for _, v in parts)
        return ('str', bytes(s, 'utf-8').decode('unicode_escape'))
    return ('tok', ''.join(v for _, v in parts))


def parse(path):
    text = strip_comments(open(path, encoding='utf-8').read())
    call = re.compile(r'\b(' + '|'.join(MACROS) + r')\s*\(')
    structs, cur, pos = [], None, 0
    while True:
        m = call.search(text, pos)
        if m is None:
            break
        args, pos = split_args(text, m.end() - 1)
        kind, vals = m.group(1), [v for _, v in args]
        if kind == 'STRUCT':
            cur = {'name': vals[0], 'padding': vals[1], 'doc': vals[2],
                   'fields': [], 'private': [], 'arrays': []}
            structs.append(cur)
            continue
        if cur is None or vals[0] != cur['name']:
            fail('%s row of %s outside its STRUCT' % (kind, vals[0]))
        if kind == 'END':
            cur = None
        elif kind == 'PRIVATE':
            cur['private'].append((vals[1], vals[2]))
        elif kind == 'COMPUTED':
            pass
        elif kind == 'OWNED':
            cur['fields'].append((vals[1].replace('*', ' *'), vals[2],
                                  vals[-1], ''))
        elif kind in ('FIELD', 'FIELD_IF'):
            typ, name = vals[1], vals[2]
            unit, doc = vals[-2], vals[-1]
            if typ not in CTYPES:
                fail('%s.%s: unknown type %s' % (cur['name'], name, typ))
            if typ in NUMBERS and not unit:
                fail('%s.%s: a number needs its unit' % (cur['name'], name))
            cur['fields'].append((CTYPES[typ], name, doc, unit))
        else:
            ctype = {'ARRAY': 'GArray *', 'PTR_ARRAY': 'GPtrArray *',
                     'NESTED': vals[1] + ' '}[kind]
            cur['fields'].append((ctype, vals[2], vals[-1], ''))
            if kind != 'NESTED':
                cur['arrays'].append({'kind': kind, 'elem': vals[1],
                                      'name': vals[2], 'item': vals[6],
                                      'doc': vals[-1]})
    if cur is not None:
        fail('STRUCT %s has no END' % cur['name'])
    return structs


def wrap(text, first, rest, width=77):
    out, line = [], first
    for word in text.split():
        if len(line) + 1 + len(word) > width and line.strip() not in ('*', ''):
            out.append(line)
            line = rest + word
        else:
            line = line + ('' if line.endswith(' ') else ' ') + word
    out.append(line)
    return '\n'.join(out)


def header(structs):
    out = ['/* Generated by gstaxreport-fields.py from gstaxreport-fields.def:',
           ' * edit the table, not this file. */',
           '',
           '#ifndef __GST_AX_REPORT_STRUCTS_H__',
           '#define __GST_AX_REPORT_STRUCTS_H__',
           '',
           '#ifndef __GST_AX_REPORT_H__',
           '#error "include <gst/ax/gstaxreport.h>, not this file"',
           '#endif',
           '',
           'G_BEGIN_DECLS',
           '']
    for s in structs:
        out.append('/**')
        out.append(' * %s:' % s['name'])
        for ctype, name, doc, unit in s['fields']:
            if not doc:
                fail('%s.%s has no doc' % (s['name'], name))
            if unit:
                doc = '%s (unit: %s)' % (doc, unit)
            out.append(wrap(doc, ' * @%s:' % name, ' *   '))
        out.append(' *')
        out.append(wrap(s['doc'], ' *', ' * '))
        out.append(' *')
        out.append(' * Since: 0.2')
        out.append(' */')
        out.append('typedef struct')
        out.append('{')
        for ctype, name, doc, unit in s['fields']:
            out.append('  %s%s;' % (ctype, name))
        out.append('')
        out.append('  /*< private >*/')
        for ctype, name in s['private']:
            out.append('  %s %s;' % (ctype, name))
        out.append('  gpointer _gst_reserved[%s];' % s['padding'])
        out.append('} %s;' % s['name'])
        out.append('')
    for s in structs:
        for a in s['arrays']:
            fn = accessor_names(s['name'], a)
            out.append(fold('GST_AX_API guint %s (const %s * %s);'
                            % (fn['n'], s['name'], fn['param'])))
            out.append(fold('GST_AX_API const %s *%s (const %s * %s, '
                            'guint index);'
                            % (a['elem'], fn['get'], s['name'],
                               fn['param'])))
    out += ['', 'G_END_DECLS', '',
            '#endif /* __GST_AX_REPORT_STRUCTS_H__ */', '']
    return '\n'.join(out)


def fold(line):
    """A declaration too long for a line broken before its arguments."""
    if len(line) <= 79:
        return line
    name, args = line.split(' (', 1)
    return '%s\n    (%s' % (name, args)


def snake(name):
    return re.sub(r'(?<!^)([A-Z])', r'_\1', name).lower()


def accessor_names(struct, array):
    prefix = snake(struct)
    return {'n': '%s_get_n_%s' % (prefix, array['name']),
            'get': '%s_get_%s' % (prefix, array['item']),
            'param': prefix.split('_')[-1]}


def without_annotations(doc):
    return re.sub(r'^(\([^)]*\)\s*)+:\s*', '', doc)


def accessors(structs):
    out = ['/* Generated by gstaxreport-fields.py from gstaxreport-fields.def:',
           ' * edit the table, not this file. */',
           '',
           '#ifdef HAVE_CONFIG_H',
           '#include "config.h"',
           '#endif',
           '',
           '#include <gst/ax/gstaxreport.h>',
           '']
    for s in structs:
        for a in s['arrays']:
            fn = accessor_names(s['name'], a)
            p, name = fn['param'], a['name']
            what = without_annotations(a['doc'])
            out += ['/**',
                    ' * %s:' % fn['n'],
                    ' * @%s: a #%s' % (p, s['name']),
                    ' *',
                    wrap('Returns: the number of entries in @%s\'s %s: %s'
                         % (p, name, what), ' *', ' *   '),
                    ' *',
                    ' * Since: 0.2',
                    ' */',
                    'guint',
                    fold('%s (const %s * %s)' % (fn['n'], s['name'], p)),
                    '{',
                    '  g_return_val_if_fail (%s != NULL, 0);' % p,
                    '  return %s->%s->len;' % (p, name),
                    '}',
                    '',
                    '/**',
                    ' * %s:' % fn['get'],
                    ' * @%s: a #%s' % (p, s['name']),
                    ' * @index: 0 .. %s() - 1' % fn['n'],
                    ' *',
                    wrap('Returns: (transfer none): entry @index of @%s\'s '
                         '%s, owned by the report' % (p, name),
                         ' *', ' *   '),
                    ' *',
                    ' * Since: 0.2',
                    ' */',
                    'const %s *' % a['elem'],
                    fold('%s (const %s * %s, guint index)'
                         % (fn['get'], s['name'], p)),
                    '{',
                    '  g_return_val_if_fail (%s != NULL, NULL);' % p,
                    '  g_return_val_if_fail (index < %s->%s->len, NULL);'
                    % (p, name)]
            if a['kind'] == 'ARRAY':
                out.append('  return &g_array_index (%s->%s, %s, index);'
                           % (p, name, a['elem']))
            else:
                out.append('  return g_ptr_array_index (%s->%s, index);'
                           % (p, name))
            out += ['}', '']
    return '\n'.join(out)


def main():
    if len(sys.argv) != 4:
        fail('usage: gstaxreport-fields.py FIELDS.def OUTPUT.h OUTPUT.c')
    structs = parse(sys.argv[1])
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write(header(structs))
    with open(sys.argv[3], 'w', encoding='utf-8') as f:
        f.write(accessors(structs))


if __name__ == '__main__':
    main()
