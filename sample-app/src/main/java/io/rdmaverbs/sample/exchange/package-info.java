@NullMarked
package io.rdmaverbs.sample.exchange;

import org.jspecify.annotations.NullMarked;
