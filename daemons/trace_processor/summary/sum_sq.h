/*
 * PerfettoSqlStructuredQuery field numbers, for the generator
 * (sum_sqgen.c) and the sources' builders (sum_sqsrc.c).
 */
#ifndef FARO_TP_SUM_SQ_H
#define FARO_TP_SUM_SQ_H

#define SQ_ID			1
#define SQ_TABLE		2
#define SQ_SQL			3
#define SQ_SIMPLE_SLICES	4
#define SQ_INNER_QUERY		5
#define SQ_INNER_QUERY_ID	6
#define SQ_INTERVAL_INTERSECT	7
#define SQ_FILTERS		8
#define SQ_GROUP_BY		9
#define SQ_SELECT_COLUMNS	10
#define SQ_REFERENCED_MODULES	11
#define SQ_LIMIT		12
#define SQ_OFFSET		13
#define SQ_ORDER_BY		14
#define SQ_JOIN			100
#define SQ_UNION		101
#define SQ_ADD_COLUMNS		102
#define SQ_FILTER_GROUP		103
#define SQ_CREATE_SLICES	104
#define SQ_TIME_RANGE		105
#define SQ_FILTER_TO_INTERVALS	106
#define SQ_COUNTER_INTERVALS	107
#define SQ_FILTER_IN		108

/* Table */
#define TBL_NAME		1
#define TBL_MODULE		2
/* SimpleSlices */
#define SS_SLICE		1
#define SS_THREAD		2
#define SS_PROCESS		3
#define SS_TRACK		4
/* Sql */
#define SQL_SQL			1
#define SQL_COLUMNS		2
#define SQL_PREAMBLE		3
#define SQL_DEPS		4
#define DEP_ALIAS		1
#define DEP_QUERY		2
/* SelectColumn */
#define SEL_NAME		1
#define SEL_ALIAS		2
#define SEL_EXPR		3

#endif
