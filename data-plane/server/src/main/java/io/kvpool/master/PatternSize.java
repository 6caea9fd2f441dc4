package io.kvpool.master;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * An upper estimate of how many instructions an RE2 pattern compiles to once its counted
 * repetitions are expanded ({@code (a{1000}){1000}} is a million), so that REMOVE_MATCHING refuses
 * a short pattern that would take the master's memory and time: RE2 matches in time linear in the
 * input, but times the program's size. Every atom counts 1, a group the sum of its parts, {@code
 * x{n,m}} m times x ({@code x{n,}} n + 1 times), {@code * + ?} add nothing. Pure: no regex engine
 * is consulted; a pattern this estimate misreads is still compiled and refused by RE2 when invalid.
 */
final class PatternSize {
  /** The largest estimate REMOVE_MATCHING accepts. */
  static final long MAX = 10_000;

  private PatternSize() {}

  static long of(String pattern) {
    Deque<long[]> groups = new ArrayDeque<>(); // per open group: {size so far}
    long size = 0; // of the group being read
    long last = 0; // size of the last atom or group, what a quantifier repeats
    int i = 0;
    int n = pattern.length();
    while (i < n) {
      char c = pattern.charAt(i);
      if (c == '(') {
        groups.push(new long[] {size});
        size = 0;
        last = 0;
        i++;
      } else if (c == ')') {
        long inner = size;
        size = groups.isEmpty() ? 0 : groups.pop()[0];
        last = Math.max(1, inner);
        size = saturated(size + last);
        i++;
      } else if (c == '{' && last > 0 && closingBrace(pattern, i) > 0) {
        int end = closingBrace(pattern, i);
        long times = repeatCount(pattern.substring(i + 1, end));
        long repeated = saturated(last * times);
        size = saturated(size - last + repeated);
        last = repeated;
        i = end + 1;
      } else if (c == '[') {
        i = classEnd(pattern, i);
        last = 1;
        size = saturated(size + 1);
      } else if (c == '\\') {
        i = escapeEnd(pattern, i);
        last = 1;
        size = saturated(size + 1);
      } else if (c == '*' || c == '+' || c == '?' || c == '|') {
        i++; // the repeated or alternative part is counted once already
      } else {
        last = 1;
        size = saturated(size + 1);
        i++;
      }
    }
    while (!groups.isEmpty()) { // an unclosed group: RE2 refuses it; count it anyway
      size = saturated(groups.pop()[0] + size);
    }
    return size;
  }

  /** Index of the '}' closing a repetition {n}, {n,} or {n,m} at {@code open}, else -1. */
  private static int closingBrace(String p, int open) {
    int i = open + 1;
    boolean digits = false;
    while (i < p.length() && (Character.isDigit(p.charAt(i)) || p.charAt(i) == ',')) {
      digits |= Character.isDigit(p.charAt(i));
      i++;
    }
    return digits && i < p.length() && p.charAt(i) == '}' ? i : -1;
  }

  private static long repeatCount(String inside) {
    int comma = inside.indexOf(',');
    String max = comma < 0 ? inside : inside.substring(comma + 1);
    if (max.isEmpty()) { // {n,}: n copies and a star
      return number(inside.substring(0, comma)) + 1;
    }
    return number(max);
  }

  private static long number(String digits) {
    if (digits.isEmpty() || digits.indexOf(',') >= 0) {
      return 1;
    }
    return digits.length() > 9 ? Long.MAX_VALUE / 4 : Long.parseLong(digits);
  }

  private static int classEnd(String p, int open) {
    int i = open + 1;
    if (i < p.length() && p.charAt(i) == '^') {
      i++;
    }
    if (i < p.length() && p.charAt(i) == ']') {
      i++;
    }
    while (i < p.length() && p.charAt(i) != ']') {
      if (p.charAt(i) == '[' && i + 1 < p.length() && p.charAt(i + 1) == ':') {
        int close = p.indexOf(":]", i + 2);
        i = close < 0 ? p.length() : close + 2;
      } else {
        i = p.charAt(i) == '\\' ? i + 2 : i + 1;
      }
    }
    return Math.min(p.length(), i + 1);
  }

  private static int escapeEnd(String p, int backslash) {
    int i = backslash + 1;
    if (i + 1 < p.length() && "pPx".indexOf(p.charAt(i)) >= 0 && p.charAt(i + 1) == '{') {
      int close = p.indexOf('}', i + 2);
      return close < 0 ? p.length() : close + 1;
    }
    if (i < p.length() && p.charAt(i) == 'Q') {
      int close = p.indexOf("\\E", i + 1);
      return close < 0 ? p.length() : close + 2;
    }
    return Math.min(p.length(), i + 1);
  }

  private static long saturated(long v) {
    return v < 0 || v > Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : v;
  }
}
