//! Civil time, as much of it as composing a conversation needs.
//!
//! The runtime needs four things from a clock: an instant with the person's
//! UTC offset, that instant written as RFC 3339 (the result of
//! `get_current_time`, `{now}`, `{conversation.started-at}`), the local date
//! and weekday (`{date}`, `{weekday}`, the `date-crossed` condition), and a
//! duration in words (`{idle}`). That is a page of arithmetic, so it lives
//! here rather than in a dependency.
//!
//! Only fixed UTC offsets are modelled. IANA time zones (`Europe/London`),
//! with their daylight-saving rules, are out of scope: a session names its
//! zone as a label for the model to read and gives the offset in force
//! separately, so a conversation that spans a daylight-saving change keeps
//! the offset it started with.
//!
//! ```
//! use contrib_runtime::time::{duration_in_words, Timestamp};
//!
//! let at = Timestamp::parse("2026-03-01T23:30:00-05:00").unwrap();
//! assert_eq!(at.to_string(), "2026-03-01T23:30:00-05:00");
//! assert_eq!(at.date().to_string(), "2026-03-01");
//! assert_eq!(at.weekday().as_str(), "Sunday");
//! // The same instant in London is already Monday.
//! assert_eq!(at.at_offset(0).date().to_string(), "2026-03-02");
//! assert_eq!(duration_in_words(2 * 86_400 + 3 * 3_600), "2 days and 3 hours");
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const SECONDS_PER_DAY: i64 = 86_400;

/// The largest UTC offset accepted, in minutes (just under a day, as RFC
/// 3339 allows).
pub const MAX_OFFSET_MINUTES: i32 = 24 * 60 - 1;

/// An instant, and the UTC offset it is read in.
///
/// Two timestamps with the same `unix_seconds` are the same instant whatever
/// their offsets; the offset only changes how it is written and which local
/// date it falls on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix_seconds: i64,
    /// The person's offset from UTC, in minutes (east positive).
    pub offset_minutes: i32,
}

/// A date in the proleptic Gregorian calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    /// The year, astronomical numbering (year 0 is 1 BC).
    pub year: i64,
    /// The month, 1 for January to 12.
    pub month: u32,
    /// The day of the month, from 1.
    pub day: u32,
}

/// A day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Weekday {
    /// Monday.
    Monday,
    /// Tuesday.
    Tuesday,
    /// Wednesday.
    Wednesday,
    /// Thursday.
    Thursday,
    /// Friday.
    Friday,
    /// Saturday.
    Saturday,
    /// Sunday.
    Sunday,
}

/// Why a text is not an RFC 3339 timestamp or offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeError(String);

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimeError {}

impl Timestamp {
    /// The instant `unix_seconds` read at `offset_minutes` east of UTC,
    /// taken as given: the offset is not checked against
    /// [`MAX_OFFSET_MINUTES`], as [`Timestamp::parse`] checks it.
    pub fn new(unix_seconds: i64, offset_minutes: i32) -> Timestamp {
        Timestamp {
            unix_seconds,
            offset_minutes,
        }
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Fractions of a
    /// second are accepted and dropped: nothing the runtime does needs them.
    pub fn parse(text: &str) -> Result<Timestamp, TimeError> {
        let bad = || {
            TimeError(format!(
                "`{text}` is not an RFC 3339 time such as `2026-03-02T09:00:00+01:00`"
            ))
        };
        let bytes = text.as_bytes();
        if bytes.len() < 20 || !matches!(bytes[10], b'T' | b't' | b' ') {
            return Err(bad());
        }
        let date = parse_date(&text[..10]).ok_or_else(bad)?;
        let clock = &text[11..];
        let hour = digits(clock, 0, 2).filter(|h| *h < 24).ok_or_else(bad)?;
        let minute = field(clock, 2, b':', 2)
            .filter(|m| *m < 60)
            .ok_or_else(bad)?;
        let second = field(clock, 5, b':', 2)
            .filter(|s| *s <= 60)
            .ok_or_else(bad)?;
        let mut rest = &clock[8..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let end = fraction
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(fraction.len());
            if end == 0 {
                return Err(bad());
            }
            rest = &fraction[end..];
        }
        let offset_minutes = parse_offset(rest).map_err(|_| bad())?;
        let local = days_from_civil(date.year, date.month, date.day) * SECONDS_PER_DAY
            + i64::from(hour) * 3_600
            + i64::from(minute) * 60
            + i64::from(second);
        Ok(Timestamp {
            unix_seconds: local - i64::from(offset_minutes) * 60,
            offset_minutes,
        })
    }

    /// The same instant, read in another offset.
    pub fn at_offset(self, offset_minutes: i32) -> Timestamp {
        Timestamp {
            offset_minutes,
            ..self
        }
    }

    /// The instant `seconds` later.
    pub fn plus_seconds(self, seconds: i64) -> Timestamp {
        Timestamp {
            unix_seconds: self.unix_seconds.saturating_add(seconds),
            ..self
        }
    }

    /// Seconds from `earlier` to `self`; zero when `earlier` is not earlier.
    pub fn seconds_since(self, earlier: Timestamp) -> u64 {
        u64::try_from(self.unix_seconds.saturating_sub(earlier.unix_seconds)).unwrap_or(0)
    }

    /// The local date in this timestamp's offset.
    pub fn date(self) -> CivilDate {
        let (year, month, day) = civil_from_days(self.local_seconds().div_euclid(SECONDS_PER_DAY));
        CivilDate { year, month, day }
    }

    /// The local day of the week in this timestamp's offset.
    pub fn weekday(self) -> Weekday {
        weekday_from_days(self.local_seconds().div_euclid(SECONDS_PER_DAY))
    }

    fn local_seconds(self) -> i64 {
        self.unix_seconds
            .saturating_add(i64::from(self.offset_minutes) * 60)
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 with the offset, `Z` for UTC: `2026-03-02T09:00:00+01:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let local = self.local_seconds();
        let (year, month, day) = civil_from_days(local.div_euclid(SECONDS_PER_DAY));
        let seconds = local.rem_euclid(SECONDS_PER_DAY);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            seconds / 3_600,
            seconds % 3_600 / 60,
            seconds % 60
        )?;
        f.write_str(&format_offset(self.offset_minutes))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for CivilDate {
    /// `YYYY-MM-DD`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Weekday {
    /// The English name, as `{weekday}` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Weekday::Monday => "Monday",
            Weekday::Tuesday => "Tuesday",
            Weekday::Wednesday => "Wednesday",
            Weekday::Thursday => "Thursday",
            Weekday::Friday => "Friday",
            Weekday::Saturday => "Saturday",
            Weekday::Sunday => "Sunday",
        }
    }
}

impl fmt::Display for Weekday {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads a UTC offset, `Z` or `±HH:MM`, into minutes east of UTC.
///
/// ```
/// use contrib_runtime::time::parse_offset;
/// assert_eq!(parse_offset("+05:45"), Ok(345));
/// assert_eq!(parse_offset("Z"), Ok(0));
/// assert!(parse_offset("+25:00").is_err());
/// ```
pub fn parse_offset(text: &str) -> Result<i32, TimeError> {
    if text == "Z" || text == "z" {
        return Ok(0);
    }
    let bad = || {
        TimeError(format!(
            "`{text}` is not a UTC offset such as `+01:00` or `Z`"
        ))
    };
    let sign = match text.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err(bad()),
    };
    if text.len() != 6 {
        return Err(bad());
    }
    let hours = digits(text, 1, 2).filter(|h| *h < 24).ok_or_else(bad)?;
    let minutes = field(text, 3, b':', 2)
        .filter(|m| *m < 60)
        .ok_or_else(bad)?;
    Ok(sign * (hours * 60 + minutes) as i32)
}

/// Writes minutes east of UTC as `Z` or `±HH:MM`.
pub fn format_offset(offset_minutes: i32) -> String {
    if offset_minutes == 0 {
        return "Z".to_string();
    }
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let minutes = offset_minutes.unsigned_abs();
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// A duration as a person says it: the days, hours and minutes that are not
/// zero, joined with commas and a final "and"; seconds only when under a
/// minute. This is the value of `{idle}`.
///
/// ```
/// use contrib_runtime::time::duration_in_words;
/// assert_eq!(duration_in_words(4 * 3_600), "4 hours");
/// assert_eq!(duration_in_words(86_400 + 60), "1 day and 1 minute");
/// assert_eq!(duration_in_words(366 * 86_400 - 60), "365 days, 23 hours and 59 minutes");
/// assert_eq!(duration_in_words(45), "45 seconds");
/// ```
pub fn duration_in_words(seconds: u64) -> String {
    if seconds < 60 {
        return plural(seconds, "second");
    }
    let parts: Vec<String> = [
        (seconds / 86_400, "day"),
        (seconds % 86_400 / 3_600, "hour"),
        (seconds % 3_600 / 60, "minute"),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, unit)| plural(count, unit))
    .collect();
    match parts.as_slice() {
        [] => plural(0, "minute"),
        [only] => only.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn plural(count: u64, unit: &str) -> String {
    if count == 1 {
        format!("1 {unit}")
    } else {
        format!("{count} {unit}s")
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`, exact for every date an `i64` of days can hold that
/// this module produces).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days.saturating_add(719_468);
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn weekday_from_days(days: i64) -> Weekday {
    // 1970-01-01 was a Thursday.
    const FROM_THURSDAY: [Weekday; 7] = [
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
    ];
    FROM_THURSDAY[days.rem_euclid(7) as usize]
}

fn parse_date(text: &str) -> Option<CivilDate> {
    let year = i64::from(digits(text, 0, 4)?);
    let month = field(text, 4, b'-', 2).filter(|m| (1..=12).contains(m))?;
    let day = field(text, 7, b'-', 2)?;
    (1..=days_in_month(year, month))
        .contains(&day)
        .then_some(CivilDate { year, month, day })
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `width` ASCII digits at `start`.
fn digits(text: &str, start: usize, width: usize) -> Option<u32> {
    let slice = text.get(start..start + width)?;
    slice
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| slice.parse().ok())
        .flatten()
}

/// A `separator` at `start` followed by `width` digits.
fn field(text: &str, start: usize, separator: u8, width: usize) -> Option<u32> {
    (text.as_bytes().get(start) == Some(&separator))
        .then(|| digits(text, start + 1, width))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_and_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn weekdays() {
        assert_eq!(weekday_from_days(0), Weekday::Thursday);
        assert_eq!(weekday_from_days(-1), Weekday::Wednesday);
        let leap_day = Timestamp::parse("2024-02-29T12:00:00Z").unwrap();
        assert_eq!(leap_day.weekday(), Weekday::Thursday);
    }

    #[test]
    fn parses_and_writes_rfc3339() {
        let at = Timestamp::parse("2026-11-29T15:04:05.123+05:45").unwrap();
        assert_eq!(at.to_string(), "2026-11-29T15:04:05+05:45");
        assert_eq!(at.at_offset(0).to_string(), "2026-11-29T09:19:05Z");
        for bad in [
            "",
            "2026-02-30T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00+1:00",
            "2026-01-01T00:00:00.Z",
            "２０２６-01-01T00:00:00Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(duration_in_words(0), "0 seconds");
        assert_eq!(duration_in_words(60), "1 minute");
        assert_eq!(duration_in_words(3_600 + 1), "1 hour");
        assert_eq!(duration_in_words(90_000), "1 day and 1 hour");
    }
}
