/**
 * The {@code verbs} actuator endpoint: the live resource graph, its stuck references and close plan,
 * as JSON or drawn as Mermaid or DOT.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
