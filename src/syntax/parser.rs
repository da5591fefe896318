use pest::iterators::Pairs;
use pest::Parser;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "../grammar/contrib.pest"]
pub(super) struct ContribParser;

pub(super) fn parse_file(text: &str) -> Result<Pairs<'_, Rule>, Box<pest::error::Error<Rule>>> {
    ContribParser::parse(Rule::file, text).map_err(Box::new)
}
