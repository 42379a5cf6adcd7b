@NullMarked
package io.rdmaverbs.sample.web;

import org.jspecify.annotations.NullMarked;
