/**
 * Auto-configuration of the Micrometer Observation of the resource graph's lifecycle steps.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
