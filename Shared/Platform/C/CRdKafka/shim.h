#ifndef CRdKafka_SHIM_H
#define CRdKafka_SHIM_H
#include <librdkafka/rdkafka.h>
/* librdkafka's in-process mock cluster (test.mock.num.brokers): tests inject
   broker errors with it, with no server (Tests/KafkaTests). */
#include <librdkafka/rdkafka_mock.h>
#endif
