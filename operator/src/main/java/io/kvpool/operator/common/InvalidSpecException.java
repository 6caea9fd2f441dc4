package io.kvpool.operator.common;

/**
 * A spec the schema admitted (or an object stored under an older schema) that the operator cannot
 * turn into objects. Its message is one readable sentence naming the field, shown in the pool's
 * {@code InvalidSpec} condition.
 */
public class InvalidSpecException extends RuntimeException {
  public InvalidSpecException(String message) {
    super(message);
  }
}
