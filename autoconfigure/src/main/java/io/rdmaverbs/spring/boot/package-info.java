/**
 * What the starter's library packages share: {@link io.rdmaverbs.spring.boot.InvalidSettingException}, the
 * base of the startup failures that name a property.
 */
@NullMarked
package io.rdmaverbs.spring.boot;

import org.jspecify.annotations.NullMarked;
