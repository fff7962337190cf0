// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "result_record.h"

#include <stdbool.h>
#include <string.h>

#include "result_fields.h"

enum em_result_from { EM_FROM_TOP, EM_FROM_RUN, EM_FROM_DEVICE };
enum em_result_type { EM_TYPE_STRING, EM_TYPE_INT, EM_TYPE_REAL };

/* The JSON value of a field of each type. */
static json_t *json_STRING(const char *v)
{
	return json_string(v ? v : "");
}

static json_t *json_INT(json_int_t v)
{
	return json_integer(v);
}

static json_t *json_REAL(double v)
{
	return json_real(v);
}

json_t *em_result_json(const struct em_result_src *s)
{
	json_t *obj = json_object();

#define EM_SET_FIELD(name, from, type, fmt, value, present, doc)		\
	if (EM_FROM_##from == EM_FROM_TOP && (present))			\
		json_object_set_new(obj, #name, json_##type(value));
	EM_RESULT_FIELDS(EM_SET_FIELD)
#undef EM_SET_FIELD
	return obj;
}

/* Where a field lives in result.json: the record, its "run" or "device". */
static json_t *field_parent(json_t *result, enum em_result_from from)
{
	return from == EM_FROM_RUN ? json_object_get(result, "run") :
	       from == EM_FROM_DEVICE ? json_object_get(result, "device") : result;
}

/* A CSV cell: quoted (RFC 4180) where it holds a comma, quote or line end. */
static void csv_string(FILE *csv, const char *v)
{
	const char *c;

	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, csv);
		return;
	}
	fputc('"', csv);
	for (c = v; *c; c++) {
		if (*c == '"')
			fputc('"', csv);
		fputc(*c, csv);
	}
	fputc('"', csv);
}

/* One cell of a field of type; empty where the record lacks it. */
static void csv_cell(FILE *csv, json_t *v, enum em_result_type type, const char *fmt)
{
	if (type == EM_TYPE_STRING && json_is_string(v))
		csv_string(csv, json_string_value(v));
	else if (type == EM_TYPE_INT && json_is_integer(v))
		fprintf(csv, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (type == EM_TYPE_REAL && json_is_number(v))
		fprintf(csv, fmt, json_number_value(v));
}

void em_result_csv_header(FILE *csv)
{
	bool first = true;

#define EM_CSV_NAME(name, from, type, fmt, value, present, doc)		\
	fprintf(csv, "%s%s", first ? "" : ",", #name);			\
	first = false;
	EM_RESULT_FIELDS(EM_CSV_NAME)
#undef EM_CSV_NAME
	fputc('\n', csv);
}

void em_result_csv_row(FILE *csv, json_t *result)
{
	bool first = true;

#define EM_CSV_CELL(name, from, type, fmt, value, present, doc)		\
	if (!first)							\
		fputc(',', csv);					\
	first = false;							\
	csv_cell(csv, json_object_get(field_parent(result, EM_FROM_##from), #name), \
		 EM_TYPE_##type, fmt);
	EM_RESULT_FIELDS(EM_CSV_CELL)
#undef EM_CSV_CELL
	fputc('\n', csv);
}

void em_result_fields_markdown(FILE *out)
{
	static const char *const where[] = { "result.json", "result.json run", "result.json device" };
	static const char *const types[] = { "string", "integer", "number" };

	fprintf(out, "| field | in | type | meaning |\n|---|---|---|---|\n");
#define EM_MD_ROW(name, from, type, fmt, value, present, doc)		\
	fprintf(out, "| `%s` | %s | %s | %s |\n", #name, where[EM_FROM_##from], \
		types[EM_TYPE_##type], doc);
	EM_RESULT_FIELDS(EM_MD_ROW)
#undef EM_MD_ROW
	fprintf(out, "| `run` | result.json | object | the guest's result line whole "
		"(every field the workload reports), where it sent one |\n"
		"| `device` | result.json | object | emgpu's stats at the guest's end "
		"(QEMU started directly) |\n"
		"| `guest` | result.json | object | where the guest broke the host's protocol: "
		"`errors`, the lines it ignored (a hold after the first, a result line over "
		"the longest, docs/testing.md); absent when none |\n");
}
