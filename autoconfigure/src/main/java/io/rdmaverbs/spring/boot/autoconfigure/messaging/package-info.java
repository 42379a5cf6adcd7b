/**
 * Auto-configuration of messaging on the declared connections ({@code io.rdmaverbs.spring.boot.messaging}).
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import org.jspecify.annotations.NullMarked;
