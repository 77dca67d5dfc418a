// Placeholder until the module lands.
enum KafkaPlaceholder {}
