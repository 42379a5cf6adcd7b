@NullMarked
package io.rdmaverbs.sample;

import org.jspecify.annotations.NullMarked;
