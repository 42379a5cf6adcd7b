/**
 * The {@code verbs} actuator endpoint: the live resource graph, its stuck references and close plan,
 * as JSON or drawn as Mermaid or DOT. Plain types; the auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.endpoint;

import org.jspecify.annotations.NullMarked;
