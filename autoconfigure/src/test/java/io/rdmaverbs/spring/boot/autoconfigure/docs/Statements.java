package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Top-level statements of a Java snippet, as line ranges: enough of a lexer (strings, characters,
 * comments, brackets) to see where a statement ends. A statement ends at a {@code ;} outside brackets,
 * or at the {@code }} closing a block statement ({@code try}, {@code for}, {@code while}, {@code if})
 * unless {@code catch}, {@code finally} or {@code else} follows, or a type declaration.
 */
final class Statements {

    private static final Pattern BLOCK_STATEMENT = Pattern.compile("^(try|for|while|if|do|synchronized|switch)\\b.*"
            + "|" + TypeDeclarations.PATTERN, Pattern.DOTALL);
    private static final Pattern CONTINUED = Pattern.compile("^\\s*(catch|finally|else)\\b.*", Pattern.DOTALL);

    private Statements() {
    }

    /** {start, end} line indexes (inclusive) of each statement; a line holding several statements is one range. */
    static List<int[]> split(List<String> lines) {
        List<int[]> ranges = new ArrayList<>();
        String code = withoutComments(String.join("\n", lines));
        int depth = 0;
        int start = -1;
        int line = 0;
        StringBuilder statement = new StringBuilder();
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '\n') {
                line++;
                continue;
            }
            if (start < 0) {
                if (Character.isWhitespace(c)) {
                    continue;
                }
                start = line;
                statement.setLength(0);
            }
            if (c == '"' || c == '\'') {
                int end = endOfLiteral(code, i);
                statement.append(code, i, end + 1);
                i = end;
                continue;
            }
            statement.append(c);
            switch (c) {
                case '(', '[', '{' -> depth++;
                case ')', ']' -> depth--;
                case '}' -> {
                    depth--;
                    if (depth == 0 && BLOCK_STATEMENT.matcher(statement).matches()
                            && !CONTINUED.matcher(code.substring(i + 1)).matches()) {
                        start = end(ranges, start, line);
                    }
                }
                case ';' -> {
                    if (depth == 0) {
                        start = end(ranges, start, line);
                    }
                }
                default -> {
                }
            }
        }
        if (start >= 0) {
            end(ranges, start, line);
        }
        return ranges;
    }

    /** Records {@code start..line}, merged with the previous range when they share a line; returns "no statement". */
    private static int end(List<int[]> ranges, int start, int line) {
        if (!ranges.isEmpty() && ranges.getLast()[1] >= start) {
            ranges.getLast()[1] = line;
        }
        else {
            ranges.add(new int[] { start, line });
        }
        return -1;
    }

    /** {@code code} with its comments blanked out (line breaks kept, so line numbers still hold). */
    static String withoutComments(String code) {
        StringBuilder out = new StringBuilder(code.length());
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '"' || c == '\'') {
                int end = endOfLiteral(code, i);
                out.append(code, i, end + 1);
                i = end;
            }
            else if (code.startsWith("//", i)) {
                while (i < code.length() && code.charAt(i) != '\n') {
                    i++;
                }
                if (i < code.length()) {
                    out.append('\n');
                }
            }
            else if (code.startsWith("/*", i)) {
                int end = code.indexOf("*/", i + 2);
                end = end < 0 ? code.length() : end + 2;
                code.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end - 1;
            }
            else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The index of the quote closing the literal that opens at {@code open}. */
    private static int endOfLiteral(String code, int open) {
        char quote = code.charAt(open);
        int i = open + 1;
        while (i < code.length() && code.charAt(i) != quote && code.charAt(i) != '\n') {
            i += code.charAt(i) == '\\' ? 2 : 1;
        }
        return Math.min(i, code.length() - 1);
    }
}
