/**
 * The {@code rdmaVerbs} entry of {@code /actuator/info}.
 */
@NullMarked
package io.rdmaverbs.spring.boot.info;

import org.jspecify.annotations.NullMarked;
